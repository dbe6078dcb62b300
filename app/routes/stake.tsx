import { lazy, useMemo, useState } from "react";
import { DiscordSection } from "../components/discord/discord-section.tsx";
import { CollectionStats } from "../components/layout/collection-stats.tsx";
import { useBoostRules } from "../components/staking/boosts-card.tsx";
import { GhostIcon, WalletIcon } from "../components/icons.tsx";
import { InstallWalletLink } from "../components/layout/wallet-button.tsx";
import { HowStakingWorks } from "../components/staking/how-staking-works.tsx";
import { ItemCard, ItemCardSkeleton } from "../components/staking/item-card.tsx";
import { bulkStakeNote, earnsFrom, unstakeNote } from "../components/staking/earnings.ts";
import { tenureResetWarning } from "../components/staking/tenure-warning.ts";
import { EmailNotifications } from "../components/notifications/email-notifications.tsx";
import { EarningsSummary, RewardsPanel } from "../components/staking/rewards-panel.tsx";
import { bulkTargets, inFilter, useStaking, type StakeFilter } from "../components/staking/use-staking.ts";
import { Button } from "../components/ui/button.tsx";
import { Card } from "../components/ui/card.tsx";
import { LoadFailed } from "../components/ui/load-failed.tsx";
import { OpenedOnce } from "../components/ui/opened-once.tsx";
import { Skeleton } from "../components/ui/skeleton.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../components/ui/tabs.tsx";
import { itemNumberFromName } from "../domain/collections.ts";
import type { StakeAction } from "../domain/messages.ts";
import { paths, type Rewards, type WalletItem } from "../lib/api.ts";
import { useApiQuery } from "../lib/queries.ts";
import { useRewards, useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/stake";

export const meta: Route.MetaFunction = () => [
  { title: "Stake Spooks, Earn Rewards | Spooks" },
  { name: "description", content: "Soft-stake your Spooks and Spook Society inscriptions and earn Spook Points every hour." },
];

// The dialogs load when first opened: the page's first paint does not need them.
const StakeDialog = lazy(() => import("../components/staking/stake-dialog.tsx").then((module) => ({ default: module.StakeDialog })));
const ConfirmDialog = lazy(() => import("../components/ui/alert-dialog.tsx").then((module) => ({ default: module.ConfirmDialog })));

const SKELETON_CARDS = 8;
const FILTERS: { value: StakeFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "spooks", label: "Spooks" },
  { value: "society", label: "Society" },
  { value: "staked", label: "Staked" },
];

const COLLECTION_ORDER: Record<string, number> = { spooks: 0, "spook-society": 1 };

/** Spooks first, then Spook Society, each by item number. */
function byCollectionAndNumber(a: WalletItem, b: WalletItem): number {
  const collection = (COLLECTION_ORDER[a.collection] ?? 2) - (COLLECTION_ORDER[b.collection] ?? 2);
  if (collection !== 0) return collection;
  return (itemNumberFromName(a.name) ?? a.id) - (itemNumberFromName(b.name) ?? b.id);
}

/** What an unstake asks first: what the hour and the day lose, and the tenure it resets. */
function unstakeCost(targets: WalletItem[], rewards: Rewards | null, items: WalletItem[]): string | null {
  const parts = [rewards ? unstakeNote(targets, rewards, items) : null, tenureResetWarning(targets)].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(" ") : null;
}

export default function StakePage() {
  const wallet = useWallet();
  if (wallet.connected && wallet.address) return <Dashboard address={wallet.address} />;
  if (wallet.status === "detecting") return <DetectingWallet />;
  if (!wallet.hasExtension) return <WalletRequired />;
  return <Disconnected />;
}

function Hero({ children }: { children: React.ReactNode }) {
  return (
    <section className="relative overflow-hidden rounded-2xl border border-violet-500/20 bg-gradient-to-br from-violet-950/80 via-zinc-950 to-fuchsia-950/40 px-6 py-12 text-center shadow-2xl shadow-violet-950/40 sm:py-16">
      <GhostIcon className="mx-auto h-16 w-16 animate-[float_4s_ease-in-out_infinite] text-violet-300" />
      {children}
    </section>
  );
}

function DetectingWallet() {
  return (
    <div className="grid gap-6" aria-busy="true">
      <Skeleton className="h-64 w-full rounded-2xl" />
      <Skeleton className="h-48 w-full rounded-xl" />
    </div>
  );
}

function WalletRequired() {
  return (
    <div className="grid gap-6">
      <Hero>
        <h1 className="mt-4 text-3xl font-bold tracking-tight text-white sm:text-4xl">MyDoge Wallet Required</h1>
        <p className="mx-auto mt-3 max-w-xl text-zinc-300">
          Install the MyDoge browser extension to stake your Spooks and earn Spook Points. Then reload this page.
        </p>
        <InstallWalletLink className="mt-6" />
      </Hero>
      <HowStakingWorks />
    </div>
  );
}

function Disconnected() {
  const wallet = useWallet();
  return (
    <div className="grid gap-6">
      <Hero>
        <h1 className="mt-4 text-3xl font-bold tracking-tight text-white sm:text-4xl">Stake Spooks, Earn Rewards</h1>
        <p className="mx-auto mt-3 max-w-xl text-zinc-300">Connect your wallet to see Spooks</p>
        <Button size="lg" className="mt-6" disabled={wallet.loading} onClick={() => void wallet.connect()}>
          <WalletIcon /> Connect Wallet
        </Button>
        {wallet.isDemo && <p className="mt-3 text-xs text-amber-300/80">Demo mode: a built-in demo wallet stands in for MyDoge.</p>}
      </Hero>
      <HowStakingWorks />
    </div>
  );
}

function Dashboard({ address }: { address: string }) {
  const [filter, setFilter] = useState<StakeFilter>("all");
  const [staking, setStaking] = useState<WalletItem | null>(null);
  const [confirm, setConfirm] = useState<{ action: StakeAction; targets: WalletItem[] } | null>(null);
  const [bulkBusy, setBulkBusy] = useState(false);
  const itemsQuery = useApiQuery<WalletItem[]>(paths.walletItems(address), { staleTime: 10_000 });
  const { stake, unstake, bulk, ensureIdle } = useStaking(address);
  const { rewards } = useRewards();
  const rules = useBoostRules();
  // A single unstake asks first, naming its cost, as Unstake All does (issue 33, item 1): no wallet opens before.
  const [unstaking, setUnstaking] = useState<WalletItem | null>(null);

  // A failed load shows as failed, with a retry, never as an empty wallet (DECISIONS "Errors holders can act on").
  const items = useMemo(() => [...(itemsQuery.data ?? [])].sort(byCollectionAndNumber), [itemsQuery.data]);
  const failed = itemsQuery.isError && !itemsQuery.data;
  const visible = useMemo(() => items.filter((item) => inFilter(item, filter)), [items, filter]);
  const loading = itemsQuery.isLoading && !itemsQuery.data;
  const stakeTargets = bulkTargets(items, filter, "stake");
  const unstakeTargets = bulkTargets(items, "staked", "unstake");
  // Spec section 2: 'Stake All' is disabled only when nothing at all is unstaked, 'Unstake All' when none is
  // staked; on a tab with nothing of its own to change, the click answers the 'No … Spooks' toast.
  const anyUnstaked = items.some((item) => !item.isStaked);
  const anyStaked = items.some((item) => item.isStaked);

  const askBulk = (action: StakeAction) => {
    const targets = action === "stake" ? stakeTargets : unstakeTargets;
    if (targets.length === 0) return void bulk(action, targets); // the 'No … Spooks' toast
    setConfirm({ action, targets });
  };

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_20rem] xl:grid-cols-[minmax(0,1fr)_22rem]">
      {/* The spec's statistics block, on the staking page only (issue 33, item 6). */}
      <div className="min-w-0 lg:col-span-2">
        <CollectionStats />
      </div>
      <section aria-labelledby="your-spooks" className="min-w-0">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <div>
            <h1 id="your-spooks" className="text-2xl font-bold tracking-tight text-white">
              Your Spooks
            </h1>
            <p className="text-sm text-zinc-400">Stake your Spooks to earn SPOOK Points every hour.</p>
          </div>
          {/* 'Stake All' on every tab but Staked (spec); 'Unstake All' on every tab (issue 27, item 6). */}
          <div className="flex flex-wrap gap-2">
            {filter !== "staked" && (
              <Button disabled={!anyUnstaked || bulkBusy} onClick={() => askBulk("stake")}>
                Stake All
              </Button>
            )}
            <Button variant="secondary" disabled={!anyStaked || bulkBusy} onClick={() => askBulk("unstake")}>
              Unstake All
            </Button>
          </div>
        </div>

        <EarningsSummary />

        <Tabs value={filter} onValueChange={(value) => setFilter(value as StakeFilter)} className="mt-4">
          <TabsList aria-label="Filter Spooks">
            {FILTERS.map((option) => (
              <TabsTrigger key={option.value} value={option.value}>
                {option.label}
                {itemsQuery.data && (
                  <span className="ml-1.5 text-xs tabular-nums">{items.filter((item) => inFilter(item, option.value)).length}</span>
                )}
              </TabsTrigger>
            ))}
          </TabsList>
          {/* One panel, the active tab's: the tabs filter the same grid. */}
          <TabsContent value={filter}>
            <h2 className="sr-only">{FILTERS.find((option) => option.value === filter)?.label} Spooks</h2>
            {failed && (
              <LoadFailed what="your Spooks" error={itemsQuery.error} onRetry={itemsQuery.refetch} retrying={itemsQuery.isFetching} />
            )}
            <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-4" aria-live="polite" aria-busy={loading}>
              {loading
                ? Array.from({ length: SKELETON_CARDS }, (_, index) => <ItemCardSkeleton key={index} />)
                : visible.map((item) => (
                    <ItemCard
                      key={item.inscriptionId}
                      item={item}
                      busy={bulkBusy}
                      earnsFrom={rewards ? earnsFrom(item, rewards.currentHour) : null}
                      onStake={(target) => ensureIdle(target) && setStaking(target)}
                      onUnstake={(target) => ensureIdle(target) && setUnstaking(target)}
                    />
                  ))}
            </div>
            {!loading && !failed && visible.length === 0 && (
              <Card className="mt-4 p-10 text-center">
                <GhostIcon className="mx-auto h-10 w-10 text-zinc-600" />
                <p className="mt-3 text-zinc-400">No Spooks found in this category</p>
              </Card>
            )}
          </TabsContent>
        </Tabs>
      </section>

      <div className="grid min-w-0 content-start gap-6">
        <RewardsPanel items={itemsQuery.data ? items : null} />
        <DiscordSection address={address} />
      </div>

      {/* Below the Spooks and the rewards, out of the way: email for this wallet's notifications (issue 24 item 6). */}
      <div className="max-w-xl min-w-0 lg:col-span-2">
        <EmailNotifications />
      </div>

      <OpenedOnce open={staking !== null}>
        <StakeDialog
          item={staking}
          rewards={rewards}
          items={items}
          rules={rules}
          onOpenChange={(open) => !open && setStaking(null)}
          onConfirm={(item, message) => stake(item, message)}
        />
      </OpenedOnce>
      <OpenedOnce open={confirm !== null}>
        <ConfirmDialog
          open={confirm !== null}
          onOpenChange={(open) => !open && setConfirm(null)}
          title={confirm ? `${confirm.action === "stake" ? "Stake" : "Unstake"} all ${confirm.targets.length} Spooks?` : ""}
          description={
            confirm?.action === "stake"
              ? "You will sign one message listing every Spook. They stay in your wallet and start earning SPOOK Points."
              : `You will sign one message listing every Spook. They stop earning SPOOK Points.${
                  confirm ? ` ${tenureResetWarning(confirm.targets) ?? ""}`.trimEnd() : ""
                }`
          }
          note={
            confirm && rewards
              ? confirm.action === "unstake"
                ? unstakeNote(confirm.targets, rewards, items)
                : rules
                  ? bulkStakeNote(confirm.targets, rewards, items, rules)
                  : null
              : null
          }
          confirmLabel={confirm?.action === "stake" ? "Stake All" : "Unstake All"}
          destructive={confirm?.action === "unstake"}
          onConfirm={() => {
            if (!confirm) return;
            const { action, targets } = confirm;
            setConfirm(null);
            setBulkBusy(true);
            void bulk(action, targets).finally(() => setBulkBusy(false));
          }}
        />
      </OpenedOnce>
      <OpenedOnce open={unstaking !== null}>
        <ConfirmDialog
          open={unstaking !== null}
          onOpenChange={(open) => !open && setUnstaking(null)}
          title={unstaking ? `Unstake ${unstaking.name}?` : ""}
          description={
            unstaking
              ? `You will sign one message in your wallet. It stays in your wallet and stops earning SPOOK Points.${
                  tenureResetWarning([unstaking]) ? ` ${tenureResetWarning([unstaking])}` : ""
                }`
              : ""
          }
          note={unstaking && rewards ? unstakeNote([unstaking], rewards, items) : null}
          confirmLabel="Unstake"
          destructive
          onConfirm={() => {
            if (!unstaking) return;
            const target = unstaking;
            setUnstaking(null);
            void unstake(target, unstakeCost([target], rewards, items));
          }}
        />
      </OpenedOnce>
    </div>
  );
}
