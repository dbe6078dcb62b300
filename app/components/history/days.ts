/** The history page's arithmetic: entries grouped by UTC day and the balance line, oldest point first. */
import type { PointsHistoryEntry } from "../../api/points.ts";

export type HistoryDay = {
  /** `2026-11-25` (UTC). */
  day: string;
  entries: PointsHistoryEntry[];
  /** The sum of the day's deltas (of the entries shown). */
  net: number;
  /** The balance after the day's newest entry shown. */
  closingBalance: number;
};

/** Entries (newest first) grouped by their UTC day, newest day first. */
export function groupByDay(entries: readonly PointsHistoryEntry[]): HistoryDay[] {
  const days: HistoryDay[] = [];
  for (const entry of entries) {
    const day = entry.at.slice(0, 10);
    let group = days.at(-1);
    if (group?.day !== day) {
      group = { day, entries: [], net: 0, closingBalance: entry.balanceAfter };
      days.push(group);
    }
    group.entries.push(entry);
    group.net += entry.delta;
  }
  // Deltas are units / 2,400: a sum rounded to the unit is exact.
  for (const group of days) group.net = Math.round(group.net * 2400) / 2400;
  return days;
}

/** The balance after each entry, oldest first, as chart points (x: milliseconds since the epoch). */
export function balanceLine(entries: readonly PointsHistoryEntry[]): { x: number; y: number }[] {
  return entries.map((entry) => ({ x: Date.parse(entry.at), y: entry.balanceAfter })).reverse();
}

const POINTS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/** Points to at most 2 decimals (an hour at 100 a day is 4.17), US-English separators. */
export function formatHistoryPoints(points: number): string {
  return POINTS.format(points);
}

/** `+4.17` / `-200` */
export function formatDelta(points: number): string {
  return `${points > 0 ? "+" : ""}${formatHistoryPoints(points)}`;
}
