import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { ConnectWalletPrompt } from "../components/layout/connect-wallet-prompt.tsx";
import { ClaimDialog, useClaimPrize, type ClaimTarget } from "../components/rewards/claim-dialog.tsx";
import { ENTER_DIALOG_DELAY_MS, EnterGiveawayDialog } from "../components/rewards/enter-dialog.tsx";
import { EntryCard } from "../components/rewards/entry-card.tsx";
import { GiveawayCard } from "../components/rewards/giveaway-card.tsx";
import { GiveawayImage } from "../components/rewards/giveaway-image.tsx";
import { PointsBanner } from "../components/rewards/points-banner.tsx";
import { useNow } from "../components/rewards/use-now.ts";
import { GhostIcon, TicketIcon } from "../components/icons.tsx";
import { Badge } from "../components/ui/badge.tsx";
import { Card } from "../components/ui/card.tsx";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "../components/ui/dialog.tsx";
import { LoadFailed } from "../components/ui/load-failed.tsx";
import { Skeleton } from "../components/ui/skeleton.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../components/ui/tabs.tsx";
import { toastFailure } from "../components/ui/failure-toast.ts";
import { toast } from "../components/ui/toast.tsx";
import { entryClosedReason, isGiveawayEnded, isGiveawayOpen, type GiveawayState } from "../domain/giveaways.ts";
import { countOf } from "../domain/format.ts";
import { entryMessage } from "../domain/messages.ts";
import { apiPost, paths, type EnterGiveawayResponse, type Giveaway, type UserGiveawayEntry } from "../lib/api.ts";
import { LIVE_REFRESH, queryKeyOf, useApiQuery } from "../lib/queries.ts";
import { isWalletHandledError, useWallet } from "../wallet/wallet-context.tsx";
import type { Route } from "./+types/rewards";

export const meta: Route.MetaFunction = () => [
  { title: "Spook Rewards | Spooks" },
  { name: "description", content: "Spend your Spook Points on giveaway tickets." },
];

export default function RewardsPage() {
  const wallet = useWallet();
  if (wallet.connected && wallet.address) return <ConnectedRewards address={wallet.address} />;
  return <DisconnectedRewards />;
}

function DisconnectedRewards() {
  return (
    <div className="mx-auto grid max-w-2xl gap-6 py-6">
      <div className="text-center">
        <GhostIcon className="mx-auto h-14 w-14 text-violet-300" />
        <h1 className="mt-3 text-3xl font-bold tracking-tight text-white">Spook Rewards</h1>
        <p className="mt-2 text-zinc-400">Spend the Spook Points your staked Spooks earn on giveaway tickets.</p>
      </div>
      <ConnectWalletPrompt description="Connect your MyDoge wallet to see your points and enter giveaways." />
    </div>
  );
}

/** How many ended or drawn giveaways "Recent winners" keeps on the default tab. */
const RECENT_WINNERS = 6;

const stateOf = (giveaway: Giveaway): GiveawayState => ({
  active: giveaway.active,
  endDate: new Date(giveaway.endDate),
  winnerAddress: giveaway.winnerAddress,
  drawBlockHeight: giveaway.drawBlockHeight,
});

function ConnectedRewards({ address }: { address: string }) {
  const wallet = useWallet();
  const queryClient = useQueryClient();
  // Issue 27, rule 3: giveaways, their draws and the holder's entries stay true on a page left open.
  const giveawaysQuery = useApiQuery<Giveaway[]>(paths.giveaways(), LIVE_REFRESH);
  const entriesQuery = useApiQuery<UserGiveawayEntry[]>(paths.userEntries(address), LIVE_REFRESH);
  const [entering, setEntering] = useState<Giveaway | null>(null);
  const [claiming, setClaiming] = useState<ClaimTarget | null>(null);
  const [enlarged, setEnlarged] = useState<Giveaway | null>(null);

  const giveaways = useMemo(() => giveawaysQuery.data ?? [], [giveawaysQuery.data]);
  // Each end date is a moment the page changes by itself (open → ended), without waiting for the next tick.
  const now = useNow(
    30_000,
    useMemo(() => giveaways.map((giveaway) => Date.parse(giveaway.endDate)), [giveaways]),
  );
  const entries = useMemo(
    () => [...(entriesQuery.data ?? [])].sort((a, b) => Date.parse(b.enteredAt) - Date.parse(a.enteredAt)),
    [entriesQuery.data],
  );
  const ticketsByGiveaway = useMemo(() => {
    const tickets = new Map<number, number>();
    for (const entry of entries) tickets.set(entry.giveawayId, (tickets.get(entry.giveawayId) ?? 0) + entry.tickets);
    return tickets;
  }, [entries]);
  const active = giveaways.filter((giveaway) => isGiveawayOpen(stateOf(giveaway), now));
  // Issue 27, item 8: ended and drawn giveaways stay on the default tab, latest first, with their winners.
  const recent = giveaways
    .filter((giveaway) => !isGiveawayOpen(stateOf(giveaway), now) && isGiveawayEnded(stateOf(giveaway), now))
    .sort((a, b) => Date.parse(b.endDate) - Date.parse(a.endDate) || b.id - a.id)
    .slice(0, RECENT_WINNERS);
  const loading = giveawaysQuery.isLoading && !giveawaysQuery.data;
  // The dialog follows the giveaway as it is now: closed meanwhile, it says so and enters nothing.
  const enteringNow = entering ? (giveaways.find((giveaway) => giveaway.id === entering.id) ?? entering) : null;
  const enteringClosed = enteringNow ? entryClosedReason({ ...stateOf(enteringNow), drawn: enteringNow.drawSeed !== null }, now) : null;
  // One "Claim Prize" per won giveaway: on its newest winning entry.
  const claimOn = new Set<number>();
  for (const giveawayId of new Set(entries.filter((entry) => entry.isWinner).map((entry) => entry.giveawayId))) {
    claimOn.add(entries.find((entry) => entry.isWinner && entry.giveawayId === giveawayId)!.id);
  }

  const claim = useClaimPrize(address);

  // `/rewards?claim={id}`: where a win's notification leads (issue 33, item 2). Once the wallet's entries are
  // read, the claim dialog opens for that giveaway while the address holds the parameter (closing it drops the
  // parameter); a link this wallet cannot claim with says why and drops it.
  const [searchParams, setSearchParams] = useSearchParams();
  const claimParam = searchParams.get("claim");
  const linkedWin =
    claimParam === null || !entriesQuery.data
      ? undefined
      : (entriesQuery.data.find((entry) => entry.isWinner && entry.giveawayId === Number(claimParam)) ?? null);
  const linkedTarget = useMemo<ClaimTarget | null>(
    () => (linkedWin && !linkedWin.claimedAt ? { giveawayId: linkedWin.giveawayId, title: linkedWin.giveawayTitle } : null),
    [linkedWin],
  );
  const dropClaimParam = useCallback(
    () =>
      setSearchParams(
        (current) => {
          current.delete("claim");
          return current;
        },
        { replace: true, preventScrollReset: true },
      ),
    [setSearchParams],
  );
  // The link whose dialog was shown: once its prize is claimed there, no "already claimed" follows the success.
  const shownFor = useRef<string | null>(null);
  useEffect(() => {
    if (linkedWin === undefined) return;
    if (linkedTarget) {
      shownFor.current = claimParam;
      return;
    }
    if (shownFor.current === claimParam) {
      // Claimed in the dialog it opened: nothing more to say.
    } else if (linkedWin === null) {
      toast({ title: "Nothing to claim", description: "This wallet did not win that giveaway.", variant: "destructive" });
    } else {
      toast({
        title: "Prize already claimed",
        description: `You claimed "${linkedWin.giveawayTitle}" already: the admin will contact you.`,
      });
    }
    dropClaimParam();
  }, [linkedWin, linkedTarget, claimParam, dropClaimParam]);
  const claimTarget = claiming ?? linkedTarget;

  const enter = async (giveaway: Giveaway, tickets: number): Promise<boolean> => {
    const message = entryMessage(giveaway.id, tickets, new Date());
    let signature: string;
    try {
      toast({ title: "Waiting for Signature", description: "Please approve the entry in your MyDoge wallet.", duration: 30_000 });
      signature = await wallet.signMessage(message);
    } catch (error) {
      // Already shown by the wallet (now disconnected, or MyDoge must be updated).
      if (!isWalletHandledError(error)) {
        toast({ title: "Signature Cancelled", description: "Giveaway entry was cancelled.", variant: "destructive" });
      }
      return false;
    }
    toast({ title: "Processing Entry", description: "Entering the giveaway...", duration: 10_000 });
    try {
      const response = await apiPost<EnterGiveawayResponse>("/api/giveaways/enter", {
        giveawayId: giveaway.id,
        address,
        tickets,
        signature,
        message,
      });
      if (response.rewards) queryClient.setQueryData(queryKeyOf(paths.rewards(address)), response.rewards);
      toast({
        title: "Entry Successful!",
        description: `You've entered the giveaway with ${countOf(tickets, "ticket")}.`,
        variant: "success",
      });
      await Promise.all(
        [paths.giveaways(), paths.userEntries(address), paths.rewards(address)].map((path) =>
          queryClient.invalidateQueries({ queryKey: queryKeyOf(path) }),
        ),
      );
      return true;
    } catch (error) {
      toastFailure({ title: "Failed to Enter", description: "There was an error entering the giveaway. Please try again." }, error);
      return false;
    }
  };

  /** Spec sections 4 and 9: refresh the points, then open the dialog 300 ms later (with the fresh balance). */
  const openEnterDialog = async (giveaway: Giveaway) => {
    // Without a known balance the dialog would offer tickets against 0 points: the banner shows the failure.
    if ((await wallet.refreshPoints()) === null) return;
    await new Promise((resolve) => setTimeout(resolve, ENTER_DIALOG_DELAY_MS));
    setEntering(giveaway);
  };

  const grid = (list: Giveaway[], empty: string) =>
    giveawaysQuery.isError && !giveawaysQuery.data ? (
      <LoadFailed what="giveaways" error={giveawaysQuery.error} onRetry={giveawaysQuery.refetch} retrying={giveawaysQuery.isFetching} />
    ) : loading ? (
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {Array.from({ length: 3 }, (_, index) => (
          <Skeleton key={index} className="h-96 rounded-xl" />
        ))}
      </div>
    ) : list.length === 0 ? (
      <Card className="p-10 text-center">
        <TicketIcon className="mx-auto h-10 w-10 text-zinc-600" />
        <p className="mt-3 text-zinc-400">{empty}</p>
      </Card>
    ) : (
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {list.map((giveaway) => (
          <GiveawayCard
            key={giveaway.id}
            giveaway={giveaway}
            now={now}
            yourTickets={ticketsByGiveaway.get(giveaway.id) ?? 0}
            onEnter={(target) => void openEnterDialog(target)}
            onEnlarge={setEnlarged}
          />
        ))}
      </div>
    );

  return (
    <div className="grid grid-cols-1 gap-8">
      <div>
        <h1 className="text-3xl font-bold tracking-tight text-white">Spook Rewards</h1>
        <p className="mt-1 text-zinc-400">Spend your Spook Points on giveaway tickets. More tickets, better odds.</p>
      </div>
      <PointsBanner />

      <Tabs defaultValue="active">
        <TabsList aria-label="Giveaways">
          <TabsTrigger value="active">Active Giveaways</TabsTrigger>
          <TabsTrigger value="all">All Giveaways</TabsTrigger>
        </TabsList>
        <TabsContent value="active">
          <h2 className="sr-only">Active Giveaways</h2>
          {grid(active, "No active giveaways at the moment. Check back soon!")}
          {recent.length > 0 && (
            <section aria-labelledby="recent-winners" className="mt-8" data-testid="recent-winners">
              <h2 id="recent-winners" className="mb-4 text-xl font-semibold text-white">
                Recent winners
              </h2>
              {grid(recent, "")}
            </section>
          )}
        </TabsContent>
        <TabsContent value="all">
          <h2 className="sr-only">All Giveaways</h2>
          {grid(giveaways, "No giveaways found.")}
        </TabsContent>
      </Tabs>

      <section aria-labelledby="my-entries">
        <h2 id="my-entries" className="flex items-center gap-2 text-xl font-semibold text-white">
          My Entries {entriesQuery.data && <Badge data-testid="entries-count">{entries.length}</Badge>}
        </h2>
        {entriesQuery.isError && !entriesQuery.data ? (
          <LoadFailed
            className="mt-4"
            what="your entries"
            error={entriesQuery.error}
            onRetry={entriesQuery.refetch}
            retrying={entriesQuery.isFetching}
          />
        ) : !entriesQuery.data ? (
          <Skeleton className="mt-4 h-24 rounded-xl" />
        ) : entries.length === 0 ? (
          <Card className="mt-4 p-8 text-center">
            <p className="font-medium text-zinc-300">No Entries Yet</p>
            <p className="mt-1 text-sm text-zinc-400">Enter a giveaway above and your tickets show up here.</p>
          </Card>
        ) : (
          <div className="mt-4 grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-3">
            {entries.map((entry) => (
              <EntryCard
                key={entry.id}
                entry={entry}
                now={now}
                onClaim={
                  claimOn.has(entry.id) ? () => setClaiming({ giveawayId: entry.giveawayId, title: entry.giveawayTitle }) : undefined
                }
              />
            ))}
          </div>
        )}
      </section>

      <EnterGiveawayDialog
        giveaway={enteringNow}
        closedReason={enteringClosed}
        balance={wallet.points ?? 0}
        onOpenChange={(open) => !open && setEntering(null)}
        onEnter={enter}
      />
      <ClaimDialog
        target={claimTarget}
        address={address}
        onOpenChange={(open) => {
          if (open) return;
          setClaiming(null);
          if (claimParam !== null) dropClaimParam();
        }}
        onClaim={claim}
      />
      <Dialog open={enlarged !== null} onOpenChange={(open) => !open && setEnlarged(null)}>
        <DialogContent className="max-w-3xl p-3">
          <DialogTitle className="px-2 pt-1 text-base">{enlarged?.title}</DialogTitle>
          <DialogDescription className="sr-only">Giveaway image, enlarged</DialogDescription>
          {enlarged && (
            <div className="overflow-hidden rounded-lg">
              <GiveawayImage src={enlarged.imageUrl} alt={enlarged.title} className="max-h-[75vh] object-contain" />
            </div>
          )}
        </DialogContent>
      </Dialog>
    </div>
  );
}
