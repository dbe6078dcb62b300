/**
 * A date, or a date and time of day, on the site's one clock (app/domain/format.ts, issue 33 item 5):
 * 'Dec 1, 2026' (the spec's 'MMM d, yyyy'), 'Dec 1, 2026, 07:00 GMT+1' with the time, or 'Invalid date'. The
 * server and the hydrating render use UTC, marked UTC (both sides agree, so hydration never mismatches);
 * after hydration the reader's own zone is used, with its abbreviation.
 */
import { useSyncExternalStore } from "react";
import { formatDate, formatDateTime, formatTime } from "../../domain/format.ts";

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
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatDay(value: Date | string | number | null | undefined, local = true): string {
  const date = toDate(value);
  return date ? formatDate(date, local ? "local" : "utc") : "Invalid date";
}

export function formatDayTime(value: Date | string | number | null | undefined, local = true): string {
  const date = toDate(value);
  return date ? formatDateTime(date, local ? "local" : "utc") : "Invalid date";
}

/** 'Dec 1, 2026' or, `withTime`, 'Dec 1, 2026, 07:00 GMT+1'; `timeOnly`: '07:00 GMT+1'. */
export function DateText({
  value,
  withTime = false,
  timeOnly = false,
}: {
  value: Date | string | number | null | undefined;
  withTime?: boolean;
  timeOnly?: boolean;
}) {
  const hydrated = useHydrated();
  const date = toDate(value);
  const text =
    date && timeOnly
      ? formatTime(date, hydrated ? "local" : "utc")
      : withTime
        ? formatDayTime(value, hydrated)
        : formatDay(value, hydrated);
  return date ? <time dateTime={date.toISOString()}>{text}</time> : <span>{text}</span>;
}
