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
      {/* One grid cell for what is shown and, while disconnected, an invisible copy of the connected lines: the
          box is as tall before the wallet reconnects as after, so the proposals below never move under a click. */}
      <div className="grid min-w-0">
        <div className="col-start-1 row-start-1">
          <h2 id="voting-power-title" className="text-xs font-medium tracking-wider text-violet-200/80 uppercase">
            Your Voting Power
          </h2>
          {connected ? (
            <>
              {power.error ? (
                <LoadFailed compact what="your voting power" error={power.error} onRetry={power.refetch} retrying={power.retrying} />
              ) : power.power === null ? (
                <div className="flex h-8 items-center">
                  <Skeleton className="h-7 w-16" />
                </div>
              ) : (
                <p className="text-2xl font-bold text-white tabular-nums" data-testid="voting-power">
                  {formatNumber(power.power)}
                </p>
              )}
              <ConnectedLines noteTestId="voting-power-note" />
            </>
          ) : (
            <p className="mt-1 text-sm text-zinc-300">Connect wallet to view</p>
          )}
        </div>
        {!connected && (
          <div className="invisible col-start-1 row-start-1" aria-hidden>
            <p className="text-xs">&nbsp;</p>
            <p className="text-2xl">&nbsp;</p>
            <ConnectedLines />
          </div>
        )}
      </div>
    </section>
  );
}

/** What the box says under the number once connected. */
function ConnectedLines({ noteTestId }: { noteTestId?: string }) {
  return (
    <>
      <p className="text-xs text-zinc-400">Based on staked Spooks</p>
      <p className="text-xs text-zinc-400" data-testid={noteTestId}>
        Your Spooks staked now. Each proposal counts the Spooks you had staked when its voting opened.
      </p>
    </>
  );
}
