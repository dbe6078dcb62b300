/**
 * Staking actions of the connected wallet, with the spec's behaviour (sections 4, 5, 8): optimistic
 * update rolled back on failure, a 30 s 'Already Processing' guard per item, one signature per action
 * (bulk included, through the bulk endpoints), the refresh 300 ms after success, and the toasts.
 * The server is the truth: after every action the wallet's items, stats and rewards are refetched.
 */
import { useCallback, useRef } from "react";
import { itemNumberFromName } from "../../domain/collections.ts";
import { bulkStakeMessage, stakeMessage, type StakeAction } from "../../domain/messages.ts";
import { ApiError, apiPost, paths, type BulkStakeResponse, type Rewards, type StakeResponse, type WalletItem } from "../../lib/api.ts";
import { invalidateQueries, setQueryData } from "../../lib/query.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { toast, type ToastOptions } from "../ui/toast.tsx";

export const PROCESSING_MARKER_MS = 30_000;
export const REFRESH_DELAY_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The number a stake message names: the '#N' of the item's name, else its id (spec "Staking message"). */
export function stakeNumberOf(item: Pick<WalletItem, "name" | "id">): number {
  return itemNumberFromName(item.name) ?? item.id;
}

export type StakeFilter = "all" | "spooks" | "society" | "staked";

/** Whether an item shows on a tab: Spooks only 'spooks', Society only 'spook-society', Staked the staked ones. */
export function inFilter(item: WalletItem, filter: StakeFilter): boolean {
  if (filter === "spooks") return item.collection === "spooks";
  if (filter === "society") return item.collection === "spook-society";
  if (filter === "staked") return item.isStaked;
  return true;
}

/** The items a bulk action covers on a tab: those of the tab that the action changes. */
export function bulkTargets(items: readonly WalletItem[], filter: StakeFilter, action: StakeAction): WalletItem[] {
  return items.filter((item) => item.isStaked === (action === "unstake") && inFilter(item, filter));
}

function isCancelled(error: unknown): boolean {
  return !(error instanceof Error && error.message === "Failed to sign message");
}

const VERB: Record<StakeAction, string> = { stake: "Staking", unstake: "Unstaking" };

/**
 * What a failed stake or unstake call raises (spec sections 7 and 8): a non-OK reply becomes
 * 'Staking failed: {status text}' / 'Unstaking failed: {status text}' (the status code when the reply has
 * no status text, as over HTTP/2), keeping the server's answer as `cause`; other errors pass unchanged.
 */
export function stakeRequestError(action: StakeAction, error: unknown): Error {
  if (error instanceof ApiError) return new Error(`${VERB[action]} failed: ${error.statusText || error.status}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/** POSTs a stake or unstake call, raising `stakeRequestError` when it fails. */
async function postStake<R>(action: StakeAction, path: string, body: unknown): Promise<R> {
  try {
    return await apiPost<R>(path, body);
  } catch (error) {
    throw stakeRequestError(action, error);
  }
}

const FAILED: Record<StakeAction, ToastOptions> = {
  stake: { title: "Staking Failed", description: "An error occurred while staking. Please try again." },
  unstake: { title: "Unstaking Failed", description: "An error occurred while unstaking. Please try again." },
};

const ALREADY_PROCESSING: ToastOptions = {
  title: "Already Processing",
  description: "This Spook is already being processed. Please wait.",
  variant: "destructive",
  duration: 3000,
};

/** One staking action, for `signAndSend`: what differs between stake, unstake and the bulk ones. */
type Flow<R> = {
  action: StakeAction;
  items: readonly WalletItem[];
  message: string;
  /** The toast when signing fails for another reason than a cancel. */
  signFailed: (error: unknown) => ToastOptions;
  /** Sends the signed message (after any toast of its own); throws when the request fails. */
  send: (address: string, signature: string) => Promise<R>;
  /** The toast when `send` threw. */
  sendFailed: (error: unknown) => ToastOptions;
  /** After the server accepted: the toasts and the refresh. */
  succeeded: (response: R) => Promise<void>;
};

export function useStaking(address: string | null) {
  const wallet = useWallet();
  const markers = useRef(new Map<string, number>());

  const isProcessing = useCallback((inscriptionId: string) => {
    const since = markers.current.get(inscriptionId);
    if (since === undefined) return false;
    if (Date.now() - since > PROCESSING_MARKER_MS) {
      markers.current.delete(inscriptionId);
      return false;
    }
    return true;
  }, []);

  /** False (with the 'Already Processing' toast) while an action on any of the items is under way. */
  const allIdle = useCallback(
    (items: readonly WalletItem[]) => {
      if (!items.some((item) => isProcessing(item.inscriptionId))) return true;
      toast(ALREADY_PROCESSING);
      return false;
    },
    [isProcessing],
  );
  const ensureIdle = useCallback((item: WalletItem) => allIdle([item]), [allIdle]);
  /** Claims the items for one action; false (and the toast) when any is already being processed. */
  const claim = useCallback(
    (items: readonly WalletItem[]) => {
      if (!allIdle(items)) return false;
      for (const item of items) markers.current.set(item.inscriptionId, Date.now());
      return true;
    },
    [allIdle],
  );
  const release = useCallback((items: readonly WalletItem[]) => {
    for (const item of items) markers.current.delete(item.inscriptionId);
  }, []);

  /** Marks items (un)staked in the shared cache at once; returns the roll-back. */
  const optimistic = useCallback(
    (items: readonly WalletItem[], staked: boolean) => {
      if (!address) return () => {};
      const ids = new Set(items.map((item) => item.inscriptionId));
      const stakedAt = staked ? new Date().toISOString() : null;
      const previous = setQueryData<WalletItem[]>(paths.walletItems(address), (current = []) =>
        current.map((item) => (ids.has(item.inscriptionId) ? { ...item, isStaked: staked, stakedAt } : item)),
      );
      return () => {
        if (previous) setQueryData(paths.walletItems(address), previous);
      };
    },
    [address],
  );

  /** After the server answered: wait 300 ms, then reload items, stats and rewards from the server. */
  const refresh = useCallback(
    async (rewards?: Rewards) => {
      if (!address) return;
      if (rewards) setQueryData(paths.rewards(address), rewards);
      await sleep(REFRESH_DELAY_MS);
      await Promise.all([
        invalidateQueries(paths.walletItems(address)),
        invalidateQueries(paths.stats(address)),
        invalidateQueries(paths.rewards(address)),
        invalidateQueries("/api/leaderboard"),
      ]);
    },
    [address],
  );

  /**
   * The steps every action shares: claim the items, mark them at once, ask for ONE signature of `message`,
   * send it, and roll the mark back when signing or sending fails; the items are released at the end.
   */
  const signAndSend = useCallback(
    async <R>({ action, items, message, signFailed, send, sendFailed, succeeded }: Flow<R>): Promise<boolean> => {
      if (!address || !claim(items)) return false;
      const rollback = optimistic(items, action === "stake");
      try {
        let signature: string;
        try {
          toast({ title: "Waiting for Signature", description: "Please approve the message in your MyDoge wallet.", duration: 30_000 });
          signature = await wallet.signMessage(message);
        } catch (error) {
          rollback();
          // Already shown by the wallet (now disconnected, or MyDoge must be updated).
          if (isWalletHandledError(error)) return false;
          if (isCancelled(error)) toast({ title: "Signature Cancelled", description: `${VERB[action]} operation was cancelled.`, variant: "destructive" });
          else toast({ ...signFailed(error), variant: "destructive" });
          return false;
        }
        let response: R;
        try {
          response = await send(address, signature);
        } catch (error) {
          rollback();
          toast({ ...sendFailed(error), variant: "destructive" });
          return false;
        }
        await succeeded(response);
        return true;
      } finally {
        release(items);
      }
    },
    [address, claim, optimistic, release, wallet],
  );

  /** Stakes one item by signing exactly `message` (the one the stake dialog shows). */
  const stake = useCallback(
    (item: WalletItem, message: string): Promise<boolean> =>
      signAndSend<StakeResponse>({
        action: "stake",
        items: [item],
        message,
        signFailed: (error) => ({ title: "Staking Failed", description: `Failed to stake: ${(error as Error).message}` }),
        async send(address, signature) {
          try {
            return await postStake<StakeResponse>("stake", "/api/stake", {
              address,
              doginalId: item.id,
              inscriptionId: item.inscriptionId,
              signature,
              message,
            });
          } catch (error) {
            const answer = (error as Error).cause;
            if (answer instanceof ApiError && (answer.body as { alreadyStaked?: boolean } | null)?.alreadyStaked) {
              return { success: true, alreadyStaked: true };
            }
            throw error;
          }
        },
        sendFailed(error) {
          return { title: "Staking Failed", description: `Failed to stake: ${(error as Error).message || "Unknown error"}` };
        },
        async succeeded(response) {
          if (response.alreadyStaked) {
            toast({ title: "Already Staked", description: `${item.name} is already staked.`, duration: 3000 });
          } else {
            toast({ title: "Spook Staked!", description: `${item.name} is now earning SPOOK Points.`, variant: "success" });
          }
          await refresh(response.rewards);
        },
      }),
    [refresh, signAndSend],
  );

  const unstake = useCallback(
    (item: WalletItem): Promise<boolean> => {
      const message = stakeMessage("unstake", stakeNumberOf(item), new Date());
      return signAndSend<StakeResponse>({
        action: "unstake",
        items: [item],
        message,
        signFailed: () => FAILED.unstake,
        send(address, signature) {
          toast({ title: "Unstaking...", description: `Unstaking ${item.name}. This can take a few seconds.`, duration: 10_000 });
          return postStake<StakeResponse>("unstake", "/api/unstake", {
            address,
            doginalId: item.id,
            inscriptionId: item.inscriptionId,
            signature,
            message,
          });
        },
        sendFailed: () => FAILED.unstake,
        async succeeded(response) {
          toast({ title: "Refreshing Data", description: "Updating your staking status...", duration: 5000 });
          await refresh(response.rewards);
          toast({ title: "Success!", description: "Unstaking request completed successfully", variant: "success", duration: 5000 });
        },
      });
    },
    [refresh, signAndSend],
  );

  /** Stakes or unstakes every target with ONE signature through the bulk endpoint (all or nothing). */
  const bulk = useCallback(
    async (action: StakeAction, targets: WalletItem[]): Promise<boolean> => {
      if (!address) return false;
      if (targets.length === 0) {
        toast(
          action === "stake"
            ? { title: "No Unstaked Spooks", description: "There are no unstaked Spooks to stake.", variant: "destructive", duration: 3000 }
            : { title: "No Staked Spooks", description: "There are no staked Spooks to unstake.", variant: "destructive", duration: 3000 },
        );
        return false;
      }
      const message = bulkStakeMessage(action, targets.map((item) => item.name), new Date());
      return signAndSend<BulkStakeResponse>({
        action,
        items: targets,
        message,
        signFailed: () => FAILED[action],
        send(address, signature) {
          toast({ title: `${VERB[action]} ${targets.length} Spooks`, description: "Please wait while this completes...", duration: 120_000 });
          return postStake<BulkStakeResponse>(action, action === "stake" ? "/api/stake/bulk" : "/api/unstake/bulk", {
            address,
            inscriptionIds: targets.map((item) => item.inscriptionId),
            signature,
            message,
          });
        },
        sendFailed: () => FAILED[action],
        async succeeded(response) {
          const done = action === "stake" ? "staked" : "unstaked";
          toast({
            title: "Success!",
            description: `${response.count} Spook${response.count === 1 ? "" : "s"} ${done}${response.alreadyStaked ? ` (${response.alreadyStaked} already ${done})` : ""}.`,
            variant: "success",
          });
          await refresh(response.rewards);
        },
      });
    },
    [address, refresh, signAndSend],
  );

  return { stake, unstake, bulk, ensureIdle };
}
