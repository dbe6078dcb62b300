/** A drawn giveaway's claims in /admin (issue 27, item 9): each winner, their contact once claimed, or "Not claimed". */
import { DateText } from "../governance/date-text.tsx";
import type { GiveawayClaims } from "../../lib/api.ts";
import { LIVE_REFRESH, useApiQuery } from "../../lib/queries.ts";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

export function GiveawayClaimsList({ giveawayId }: { giveawayId: number }) {
  const query = useApiQuery<GiveawayClaims>(`/api/giveaways/${giveawayId}/claims`, LIVE_REFRESH);
  if (query.isError && !query.data) {
    return <LoadFailed what="the claims" error={query.error} onRetry={query.refetch} retrying={query.isFetching} compact />;
  }
  if (!query.data) return <Skeleton className="h-10 w-full" />;
  const { winners, claimed, unclaimed } = query.data;
  return (
    <div className="rounded-lg border border-zinc-800 bg-zinc-900/60 p-3 text-xs" data-testid="giveaway-claims">
      <p className="font-medium text-zinc-200">
        Claims: {claimed} claimed, {unclaimed} not claimed
      </p>
      <ul className="mt-2 grid gap-1.5">
        {winners.map((winner) => (
          <li key={winner.address} className="grid gap-0.5" data-testid="winner-claim" data-claimed={winner.claimedAt ? "true" : "false"}>
            <span className="font-mono break-all text-zinc-300">{winner.address}</span>
            {winner.claimedAt ? (
              <span className="text-emerald-300">
                Claimed <DateText value={winner.claimedAt} withTime />: <span className="break-all">{winner.contact}</span>
              </span>
            ) : (
              <span className="text-amber-300">Not claimed</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
