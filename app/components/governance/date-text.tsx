/**
 * Dates as 'MMM d, yyyy' in the reader's time zone, or 'Invalid date'. The server and the hydrating
 * render use UTC (both sides agree, so hydration never mismatches); after hydration the browser's own
 * zone is used.
 */
import { format, isValid } from "date-fns";
import { useSyncExternalStore } from "react";

const UTC_DAY = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric", year: "numeric" });
const UTC_DAY_TIME = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  month: "short",
  day: "numeric",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
});

const subscribe = () => () => {};

/** False during server render and hydration, true afterwards. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

export function toDate(value: Date | string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  const date = value instanceof Date ? value : new Date(value);
  return isValid(date) ? date : null;
}

export function formatDay(value: Date | string | number | null | undefined, local = true): string {
  const date = toDate(value);
  if (!date) return "Invalid date";
  try {
    return local ? format(date, "MMM d, yyyy") : UTC_DAY.format(date);
  } catch {
    return "Invalid date";
  }
}

export function formatDayTime(value: Date | string | number | null | undefined, local = true): string {
  const date = toDate(value);
  if (!date) return "Invalid date";
  try {
    return local ? format(date, "MMM d, yyyy, h:mm a") : `${UTC_DAY_TIME.format(date)} UTC`;
  } catch {
    return "Invalid date";
  }
}

export function DateText({ value, withTime = false }: { value: Date | string | number | null | undefined; withTime?: boolean }) {
  const hydrated = useHydrated();
  const date = toDate(value);
  const text = withTime ? formatDayTime(value, hydrated) : formatDay(value, hydrated);
  return date ? <time dateTime={date.toISOString()}>{text}</time> : <span>{text}</span>;
}
