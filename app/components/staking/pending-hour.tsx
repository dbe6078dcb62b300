import { useEffect } from "react";
import type { Rewards } from "../../lib/api.ts";
import { pendingText } from "./earnings.ts";

/**
 * Refreshes the rewards once the hour under way has been credited (the indexer credits it at minute 0; 15 s
 * later it is there), so "+16.67 at 22:00" never lingers after 22:00.
 */
export function useHourRollover(creditedAt: string | null, refetch: () => Promise<void>) {
  useEffect(() => {
    if (!creditedAt) return;
    const wait = Math.max(1_000, Date.parse(creditedAt) + 15_000 - Date.now());
    const timer = setTimeout(() => void refetch(), Math.min(wait, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [creditedAt, refetch]);
}

/** '+16.67 at 22:00' with what it means, for the panel, the compact summary and the rewards banner. */
export function PendingHour({ rewards, testId = "pending-hour" }: { rewards: Rewards; testId?: string }) {
  return (
    <span title="Points for the hour under way, credited when it ends (items staked during the hour earn from the next one)">
      <span className="text-zinc-400">This hour: </span>
      <span className="font-semibold whitespace-nowrap text-emerald-300 tabular-nums" data-testid={testId}>
        {pendingText(rewards.currentHour)}
      </span>
    </span>
  );
}
