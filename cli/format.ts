/** How the CLI writes figures and times: exact enough for an operator, stable for scripts. */
import { formatPointsExact } from "../app/domain/format.ts";

/** Points to two decimals, US-English separators ('1,234.50'), as the points history shows them (DECISIONS "Points"). */
export function points(value: number): string {
  return formatPointsExact(value);
}

/** A point in time in UTC, to the minute ('2025-10-31 18:00 UTC'). */
export function dateTime(value: Date | string): string {
  const date = value instanceof Date ? value : new Date(value);
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
