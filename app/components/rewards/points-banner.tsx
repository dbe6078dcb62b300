import { Link } from "react-router";
import { formatNumber } from "../../domain/format.ts";
import { PendingHour, useHourRollover } from "../staking/pending-hour.tsx";
import { PointsFigure } from "../ui/points-figure.tsx";
import { useRewards } from "../../wallet/wallet-context.tsx";
import { SparklesIcon } from "../icons.tsx";
import { Card } from "../ui/card.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

/** Points, daily rate, staked NFTs and tier of the connected wallet; loading, or failed with a retry. */
export function PointsBanner() {
  const { rewards, error, isFetching, refetch } = useRewards();
  useHourRollover(rewards?.currentHour.creditedAt ?? null, refetch);
  if (!rewards) {
    return error ? (
      <LoadFailed what="your points" error={error} onRetry={refetch} retrying={isFetching} />
    ) : (
      <Skeleton className="h-32 rounded-xl" />
    );
  }
  const figures = [
    { label: "Daily Rate", value: `+${formatNumber(rewards.dailyRate)} SPOOK` },
    { label: "Staked NFTs", value: `${formatNumber(rewards.stakedCount)} / ${formatNumber(rewards.totalCount)}` },
    { label: "Reward Tier", value: `Tier ${rewards.rewardTier}` },
  ];
  return (
    <Card className="overflow-hidden">
      <div className="grid gap-4 bg-gradient-to-r from-violet-700/40 via-fuchsia-800/20 to-transparent p-5 sm:grid-cols-[1.4fr_repeat(3,1fr)] sm:items-center">
        <div>
          <p className="flex items-center gap-1.5 text-sm text-violet-200/80">
            <SparklesIcon className="h-4 w-4" /> Your Spook Points
          </p>
          <p className="text-4xl font-bold tracking-tight text-white">
            <PointsFigure value={rewards.unclaimedRewards} data-testid="banner-points" />
          </p>
          <p className="mt-1 text-sm">
            <PendingHour rewards={rewards} testId="banner-pending-hour" />
          </p>
          <Link to="/rewards/history" className="mt-1 inline-block text-sm text-violet-200 underline underline-offset-4 hover:text-white">
            Points history
          </Link>
        </div>
        {figures.map((figure) => (
          <div key={figure.label} className="rounded-lg border border-white/5 bg-black/20 px-4 py-3">
            <p className="text-xs text-zinc-400">{figure.label}</p>
            <p className="text-lg font-semibold text-zinc-100">{figure.value}</p>
          </div>
        ))}
      </div>
    </Card>
  );
}
