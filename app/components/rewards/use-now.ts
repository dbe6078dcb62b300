import { useEffect, useState } from "react";
import { nextBoundary } from "../../domain/giveaways.ts";

/** Longest delay setTimeout keeps (about 24.8 days); a later boundary is rescheduled when it fires. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The current time, refreshed every `intervalMs` (time-remaining badges) and at each of `boundaries` (ms
 * since the epoch: end dates, a proposal's start and end), so a status that depends on the clock (open →
 * ended, upcoming → active → completed) flips at its time on a page left open, not up to `intervalMs` later.
 */
export function useNow(intervalMs = 30_000, boundaries: readonly number[] = []): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  const key = boundaries.join(",");
  useEffect(() => {
    const next = nextBoundary(key.split(",").filter(Boolean).map(Number), now.getTime());
    if (next === null) return;
    // One millisecond past it: "active until its end" holds at the end itself.
    const timer = setTimeout(() => setNow(new Date()), Math.min(Math.max(0, next - Date.now()) + 1, MAX_TIMEOUT_MS));
    return () => clearTimeout(timer);
  }, [key, now]);
  return now;
}
