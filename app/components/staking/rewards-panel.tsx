import type { UseQueryResult } from "@tanstack/react-query";
import { formatNumber, shortenAddress } from "../../domain/format.ts";
import { PointsFigure } from "../ui/points-figure.tsx";
import { REWARD_TIERS, stakingPercentage } from "../../domain/rewards.ts";
import { paths, type LeaderboardEntry, type Rewards, type WalletItem } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { useRewards, useWallet } from "../../wallet/wallet-context.tsx";
import { SparklesIcon, TrophyIcon } from "../icons.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "../ui/card.tsx";
import { cn } from "../ui/cn.ts";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import { BoostsCard } from "./boosts-card.tsx";
import { PendingHour, useHourRollover } from "./pending-hour.tsx";

const TOP_STAKERS = 3;

function tierRange(tier: (typeof REWARD_TIERS)[number]): string {
  return tier.maxStaked === null ? `${tier.minStaked}+ Spooks` : `${tier.minStaked}-${tier.maxStaked} Spooks`;
}

/**
 * The staking page's side panel: earning rate, staked share, tier, points, rank, multipliers, boosts, top
 * stakers. `items` is null while the wallet's items are not known (loading, or failed: the page shows that).
 * It scrolls with the page (not sticky): the cards below it in its column never slide over it (issue 33, item 6).
 */
export function RewardsPanel({ items }: { items: WalletItem[] | null }) {
  const { address } = useWallet();
  const rewardsQuery = useRewards();
  const { rewards } = rewardsQuery;
  useHourRollover(rewards?.currentHour.creditedAt ?? null, rewardsQuery.refetch);
  const leaderboard = useApiQuery<LeaderboardEntry[]>(paths.leaderboard(TOP_STAKERS), { staleTime: 30_000 });

  return (
    <aside className="grid content-start gap-4 self-start" aria-label="Rewards">
      {rewards ? (
        <EarningCard rewards={rewards} items={items} />
      ) : rewardsQuery.error ? (
        <LoadFailed what="your rewards" error={rewardsQuery.error} onRetry={rewardsQuery.refetch} retrying={rewardsQuery.isFetching} />
      ) : (
        <Skeleton className="h-72 rounded-xl" />
      )}
      <MultipliersCard currentTier={rewards?.rewardTier ?? null} />
      <BoostsCard />
      <TopStakersCard address={address} leaderboard={leaderboard} />
    </aside>
  );
}

/**
 * The staking page's compact earnings summary, above the item grid on narrow screens (on wide ones the panel
 * beside the grid says the same): points, daily rate and tier, and the hour under way.
 */
export function EarningsSummary() {
  const rewardsQuery = useRewards();
  const { rewards } = rewardsQuery;
  useHourRollover(rewards?.currentHour.creditedAt ?? null, rewardsQuery.refetch);
  if (!rewards) return null;
  return (
    <Card className="mt-4 grid gap-1 px-4 py-3 text-sm lg:hidden" data-testid="earnings-summary" aria-label="Your earnings">
      <p className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span>
          <PointsFigure value={rewards.unclaimedRewards} className="text-lg font-bold text-violet-200 tabular-nums" />{" "}
          <span className="text-zinc-400">Spook Points</span>
        </span>
        <span className="whitespace-nowrap text-zinc-200">+{formatNumber(rewards.dailyRate)} SPOOK/day</span>
        <span className="whitespace-nowrap text-zinc-400">Tier {rewards.rewardTier}</span>
      </p>
      <p>
        <PendingHour rewards={rewards} />
      </p>
    </Card>
  );
}

function EarningCard({ rewards, items }: { rewards: Rewards; items: WalletItem[] | null }) {
  const staked = items?.filter((item) => item.isStaked).length ?? rewards.stakedCount;
  const total = items?.length ?? rewards.totalCount;
  const percent = stakingPercentage(staked, total);
  return (
    <Card className="overflow-hidden">
      <div className="bg-gradient-to-br from-violet-600/30 via-fuchsia-700/10 to-transparent p-5">
        <p className="text-sm text-violet-200/80">Daily Earning Rate</p>
        <p className="mt-1 text-3xl font-bold whitespace-nowrap text-white tabular-nums" data-testid="daily-rate">
          +{formatNumber(rewards.dailyRate)} SPOOK
        </p>
        <p className="text-xs text-zinc-400">per day</p>
      </div>
      <CardContent className="grid gap-4 pt-4">
        <div>
          {/* Each figure stays on one line (1280 and 1366 px wide included); the tier moves below when short of room. */}
          <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1 text-sm">
            <span className="whitespace-nowrap text-zinc-300" data-testid="staked-share">
              {staked} out of {total} Spooks Staked
            </span>
            <span
              className="rounded-full bg-violet-500/15 px-2 py-0.5 text-xs font-semibold whitespace-nowrap text-violet-200"
              data-testid="reward-tier"
            >
              Tier {rewards.rewardTier} Rewards
            </span>
          </div>
          <div
            className="mt-2 h-2 overflow-hidden rounded-full bg-zinc-800"
            role="progressbar"
            aria-valuenow={percent}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-label="Share staked"
          >
            <div
              className="h-full rounded-full bg-gradient-to-r from-violet-500 to-fuchsia-500 transition-all"
              style={{ width: `${percent}%` }}
            />
          </div>
        </div>
        <div className="grid grid-cols-2 gap-3">
          <div className="min-w-0 rounded-lg border border-zinc-800 bg-zinc-900/60 p-3">
            <p className="text-xs whitespace-nowrap text-zinc-400">Spook Points</p>
            <p className="text-lg font-bold break-all text-violet-200 tabular-nums">
              <PointsFigure value={rewards.unclaimedRewards} data-testid="panel-points" />
            </p>
          </div>
          <div className="min-w-0 rounded-lg border border-zinc-800 bg-zinc-900/60 p-3">
            <p className="text-xs whitespace-nowrap text-zinc-400">Leaderboard Rank</p>
            <p className="truncate text-lg font-bold text-amber-300 tabular-nums" data-testid="rank">
              {rewards.rank > 0 ? `#${formatNumber(rewards.rank)}` : "Not ranked"}
            </p>
          </div>
        </div>
        <p className="text-sm">
          <PendingHour rewards={rewards} />
        </p>
        <p className="flex items-center gap-1.5 text-xs text-zinc-400">
          <SparklesIcon className="h-3.5 w-3.5 text-violet-300" />
          Points are automatically added hourly
        </p>
      </CardContent>
    </Card>
  );
}

function MultipliersCard({ currentTier }: { currentTier: number | null }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="text-base">Reward Multipliers</CardTitle>
      </CardHeader>
      <CardContent>
        <table className="w-full text-sm whitespace-nowrap" data-testid="reward-multipliers">
          <caption className="sr-only">Daily SPOOK per staked Spook by number staked</caption>
          <thead>
            <tr className="text-left text-xs text-zinc-400">
              <th scope="col" className="pb-2 font-medium">
                Staked
              </th>
              <th scope="col" className="pb-2 font-medium">
                Tier
              </th>
              <th scope="col" className="pb-2 text-right font-medium">
                Per Spook / day
              </th>
            </tr>
          </thead>
          <tbody>
            {REWARD_TIERS.map((tier) => {
              const current = tier.tier === currentTier;
              return (
                <tr key={tier.tier} className={cn("border-t border-zinc-800", current && "text-violet-100")}>
                  <td className="py-2">{tierRange(tier)}</td>
                  <td className="py-2">
                    {tier.tier}
                    {current && <span className="ml-1.5 rounded bg-violet-600/30 px-1.5 text-[10px] text-violet-100">current</span>}
                  </td>
                  <td className="py-2 text-right font-semibold">{tier.dailyRatePerItem} SPOOK</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </CardContent>
    </Card>
  );
}

function TopStakersCard({ address, leaderboard }: { address: string | null; leaderboard: UseQueryResult<LeaderboardEntry[]> }) {
  const top = (leaderboard.data ?? []).slice(0, TOP_STAKERS);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <TrophyIcon className="h-4 w-4 text-amber-300" /> Top Stakers
        </CardTitle>
      </CardHeader>
      <CardContent>
        {leaderboard.isError && !leaderboard.data ? (
          <LoadFailed what="the leaderboard" error={leaderboard.error} onRetry={leaderboard.refetch} retrying={leaderboard.isFetching} />
        ) : !leaderboard.data ? (
          <p className="text-sm text-zinc-400">Loading leaderboard...</p>
        ) : top.length === 0 ? (
          <p className="text-sm text-zinc-400">Nobody is staking yet.</p>
        ) : (
          <ol className="grid gap-2" data-testid="top-stakers">
            {top.map((entry, index) => (
              <li
                key={entry.address}
                className={cn(
                  "flex items-center justify-between rounded-lg border border-zinc-800 bg-zinc-900/60 px-3 py-2 text-sm",
                  entry.address === address && "border-violet-500/50",
                )}
              >
                <span className="flex items-center gap-2">
                  <span
                    className={cn(
                      "grid h-6 w-6 place-items-center rounded-full text-xs font-bold",
                      ["bg-yellow-400 text-yellow-950", "bg-zinc-300 text-zinc-900", "bg-amber-700 text-amber-50"][index],
                    )}
                  >
                    {index + 1}
                  </span>
                  <span className="font-mono whitespace-nowrap text-zinc-200">{shortenAddress(entry.address)}</span>
                </span>
                <span className="grid justify-items-end">
                  <PointsFigure value={entry.rewards} className="font-semibold whitespace-nowrap text-violet-200 tabular-nums" />
                  <span className="text-[11px] whitespace-nowrap text-zinc-400 tabular-nums" data-testid="top-staker-rate">
                    +{formatNumber(entry.dailyRate)}/day
                  </span>
                </span>
              </li>
            ))}
          </ol>
        )}
      </CardContent>
    </Card>
  );
}
