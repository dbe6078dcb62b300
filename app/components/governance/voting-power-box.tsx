import { formatNumber } from "../../domain/format.ts";
import { ShieldIcon } from "../icons.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import type { VotingPower } from "./use-vote.ts";

/**
 * The wallet's current voting power: the number of Spooks it has staked now (docs/decisions.md, "Pages
 * (issue 12)"), or a prompt to connect. A proposal's own power is its snapshot, shown in its dialog.
 */
export function VotingPowerBox({ connected, power }: { connected: boolean; power: VotingPower }) {
  return (
    <section
      aria-labelledby="voting-power-title"
      className="flex items-center gap-4 rounded-xl border border-violet-500/25 bg-gradient-to-br from-violet-600/20 to-fuchsia-600/10 px-5 py-4 shadow-lg shadow-violet-950/30"
    >
      <span className="grid size-11 place-items-center rounded-lg bg-violet-600/30 text-violet-200">
        <ShieldIcon className="h-5 w-5" />
      </span>
      <div className="min-w-0">
        <h2 id="voting-power-title" className="text-xs font-medium tracking-wider text-violet-200/80 uppercase">
          Your Voting Power
        </h2>
        {connected ? (
          <>
            {power.error ? (
              <LoadFailed compact what="your voting power" error={power.error} onRetry={power.refetch} retrying={power.retrying} />
            ) : power.power === null ? (
              <Skeleton className="my-1 h-7 w-16" />
            ) : (
              <p className="text-2xl font-bold text-white tabular-nums" data-testid="voting-power">
                {formatNumber(power.power)}
              </p>
            )}
            <p className="text-xs text-zinc-400">Based on staked Spooks</p>
            <p className="text-xs text-zinc-400" data-testid="voting-power-note">
              Your Spooks staked now. Each proposal counts the Spooks you had staked when its voting opened.
            </p>
          </>
        ) : (
          <p className="mt-1 text-sm text-zinc-300">Connect wallet to view</p>
        )}
      </div>
    </section>
  );
}
