/** The history page's arithmetic: entries grouped by UTC day and the balance line, oldest point first. */
import { format } from "date-fns";
import type { PointsHistoryEntry } from "../../api/points.ts";
import { formatPointsDelta, formatPointsExact } from "../../domain/format.ts";

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

/** Points to two decimals (an hour at 100 a day is 4.17), US-English separators (app/domain/format.ts). */
export function formatHistoryPoints(points: number): string {
  return formatPointsExact(points);
}

/** `+4.17` / `-200.00` */
export function formatDelta(points: number): string {
  return formatPointsDelta(points);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Tick steps the time axis chooses from: hours, then days (UTC); minutes only for a span under an hour. */
const STEPS = [1, 2, 3, 6, 12].map((hours) => hours * HOUR_MS).concat([1, 2, 7, 14, 30, 61, 91, 182, 365].map((days) => days * DAY_MS));
const MINUTE_STEPS = [1, 2, 5, 10, 15, 30].map((minutes) => minutes * 60_000);
const MAX_TICKS = 6;

/** `ms` as a date whose local fields read as UTC, for date-fns's `format` (the page's times are UTC). */
function asUtc(ms: number): Date {
  const date = new Date(ms);
  return new Date(ms + date.getTimezoneOffset() * 60_000);
}

export type TimeAxis = { min: number; max: number; ticks: { value: number; label: string }[] };

/**
 * The x axis of the balance chart over `xs` (ms since the epoch): the span of the entries shown, padded by
 * 5% (at least an hour around a single entry), with at most 6 ticks at whole UTC minutes, hours or days: 'HH:mm' for
 * minute and hour steps ('MMM d HH:mm' at a midnight), 'MMM d' for day steps ('MMM d, yyyy' beyond a year).
 */
export function timeAxis(xs: readonly number[]): TimeAxis | null {
  if (xs.length === 0) return null;
  const first = Math.min(...xs);
  const last = Math.max(...xs);
  const pad = Math.max((last - first) * 0.05, first === last ? HOUR_MS : 5 * 60_000);
  const min = first - pad;
  const max = last + pad;
  // A history made within minutes (a new holder's first session) would have no whole hour to mark.
  const steps = max - min < HOUR_MS ? [...MINUTE_STEPS, ...STEPS] : STEPS;
  const step = steps.find((candidate) => (max - min) / candidate <= MAX_TICKS) ?? steps.at(-1)!;
  const long = max - min > 330 * DAY_MS;
  const ticks: TimeAxis["ticks"] = [];
  for (let value = Math.ceil(min / step) * step; value <= max; value += step) {
    const utc = asUtc(value);
    const label =
      step < DAY_MS
        ? value % DAY_MS === 0
          ? format(utc, "MMM d HH:mm")
          : format(utc, "HH:mm")
        : format(utc, long ? "MMM d, yyyy" : "MMM d");
    ticks.push({ value, label });
  }
  return { min, max, ticks };
}
