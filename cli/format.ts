/** How the CLI writes figures and times: exact enough for an operator, stable for scripts. */
import { formatNumber } from "../app/domain/format.ts";

/** Points to 2 decimals at most, US-English separators ('1,234.5'). */
export function points(value: number): string {
  return formatNumber(Math.round(value * 100) / 100);
}

/** A point in time in UTC, to the minute ('2025-10-31 18:00 UTC'). */
export function dateTime(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
