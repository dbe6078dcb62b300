import { formatNumber } from "../../domain/format.ts";
import { paths, type WalletStats } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { Card } from "../ui/card.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";

const CARDS = [
  { title: "Total Spooks", label: "Total Spooks Owned", value: (s: WalletStats) => s.totalCount, accent: "text-violet-300" },
  { title: "OG Spooks", label: "Original Collection", value: (s: WalletStats) => s.spooksCount, accent: "text-fuchsia-300" },
  { title: "Spook Society", label: "Society Collection", value: (s: WalletStats) => s.societyCount, accent: "text-sky-300" },
  { title: "Currently Staked", label: "Earning Rewards", value: (s: WalletStats) => s.stakedCount, accent: "text-emerald-300" },
] as const;

/**
 * The connected wallet's collection statistics (shown only while connected: the spec's "visible flag"), on the
 * staking page only: elsewhere they pushed the page's own content below the fold (issue 33, item 6).
 */
export function CollectionStats() {
  const { connected, address } = useWallet();
  const query = useApiQuery<WalletStats>(connected && address ? paths.stats(address) : null, { staleTime: 10_000 });
  if (!connected) return null;
  const stats = query.data;
  if (!stats && query.isError) {
    return (
      <section aria-label="Collection statistics">
        <LoadFailed what="your collection statistics" error={query.error} onRetry={query.refetch} retrying={query.isFetching} />
      </section>
    );
  }
  return (
    <section aria-label="Collection statistics" className="grid w-full grid-cols-2 gap-3 lg:grid-cols-4">
      {CARDS.map((card) => (
        <Card key={card.title} className="p-4">
          <p className="text-sm font-medium text-zinc-300">{card.title}</p>
          {stats ? (
            <p className={`mt-1 text-3xl font-bold tabular-nums ${card.accent}`} data-testid={`stat-${card.title}`}>
              {formatNumber(card.value(stats))}
            </p>
          ) : (
            <Skeleton className="mt-2 h-8 w-16" />
          )}
          <p className="mt-1 text-xs text-zinc-400">{card.label}</p>
        </Card>
      ))}
    </section>
  );
}
