/**
 * Staking actions of the connected wallet, with the spec's behaviour (sections 4, 5, 8): optimistic
 * update rolled back on failure and the refresh 300 ms after (the mutation of stake-mutation.ts), a 30 s
 * 'Already Processing' guard per item, one signature per action (bulk included, through the bulk
 * endpoints), and the toasts.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef } from "react";
import { HOUR_MS, hourStart } from "../../domain/clock.ts";
import { itemNumberFromName } from "../../domain/collections.ts";
import { formatTime } from "../../domain/format.ts";
import { bulkStakeMessage, stakeMessage, type StakeAction } from "../../domain/messages.ts";
import { ApiError, apiPost, type BulkStakeResponse, type StakeResponse, type WalletItem } from "../../lib/api.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { toastFailure } from "../ui/failure-toast.ts";
import { toast, type ToastOptions } from "../ui/toast.tsx";
import { stakeMutationOptions, StakeStepError, type StakeAnswer } from "./stake-mutation.ts";

export const PROCESSING_MARKER_MS = 30_000;

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

/** A stake's outcome: the server's answer, or the same without rewards when it was refused as already staked. */
type StakeOutcome = Omit<StakeResponse, "rewards"> & StakeAnswer;

/** One staking action, for `run`: what differs between stake, unstake and the bulk ones. */
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
  /** The toasts once the server accepted, before the refresh. */
  accepted: (response: R) => void;
  /** What signing costs (an unstake's lost hour, a tier drop), shown with 'Waiting for Signature'. */
  note?: string | null;
};

export function useStaking(address: string | null) {
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const markers = useRef(new Map<string, number>());
  const { mutateAsync } = useMutation(stakeMutationOptions(queryClient));

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

  /**
   * The steps every action shares: claim the items, then the mutation (marked at once, ONE signature of
   * `message`, sent, rolled back when signing or sending fails, refreshed after), the failure toasts, and the
   * items released at the end. Resolves the server's answer, or null when the action failed.
   */
  const run = useCallback(
    async <R extends StakeAnswer>({ action, items, message, signFailed, send, sendFailed, accepted, note }: Flow<R>): Promise<R | null> => {
      if (!address || !claim(items)) return null;
      try {
        // The answer (here and for `accepted`) is what `send` resolved: an R.
        return (await mutateAsync({
          address,
          action,
          items,
          sign() {
            toast({
              title: "Waiting for Signature",
              description: "Please approve the message in your MyDoge wallet.",
              duration: 30_000,
              note: note ?? null,
            });
            return wallet.signMessage(message);
          },
          send: (signature) => send(address, signature),
          accepted: (answer) => accepted(answer as R),
        })) as R;
      } catch (caught) {
        const { step, cause } = caught instanceof StakeStepError ? caught : new StakeStepError("send", caught);
        if (step === "send") toastFailure(sendFailed(cause), cause);
        // Already shown by the wallet (now disconnected, or MyDoge must be updated).
        else if (isWalletHandledError(cause)) return null;
        else if (isCancelled(cause))
          toast({ title: "Signature Cancelled", description: `${VERB[action]} operation was cancelled.`, variant: "destructive" });
        else toast({ ...signFailed(cause), variant: "destructive" });
        return null;
      } finally {
        release(items);
      }
    },
    [address, claim, mutateAsync, release, wallet],
  );

  /** Stakes one item by signing exactly `message` (the one the stake dialog shows). */
  const stake = useCallback(
    async (item: WalletItem, message: string): Promise<boolean> =>
      (await run<StakeOutcome>({
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
        accepted(response) {
          if (response.alreadyStaked) {
            toast({ title: "Already Staked", description: `${item.name} is already staked.`, duration: 3000 });
          } else {
            // The accrual counts whole hours: it earns from the next one (issue 33, item 2).
            const from = formatTime(hourStart(new Date()).getTime() + HOUR_MS);
            toast({ title: "Spook Staked!", description: `${item.name} is staked: it earns from ${from}.`, variant: "success" });
          }
        },
      })) !== null,
    [run],
  );

  /** Unstakes one item; `note` (what the hour and the tier lose) shows while the wallet asks to sign. */
  const unstake = useCallback(
    async (item: WalletItem, note: string | null = null): Promise<boolean> => {
      const message = stakeMessage("unstake", stakeNumberOf(item), new Date());
      const response = await run<StakeResponse>({
        action: "unstake",
        items: [item],
        message,
        note,
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
        accepted() {
          toast({ title: "Refreshing Data", description: "Updating your staking status...", duration: 5000 });
        },
      });
      if (response === null) return false;
      toast({ title: "Success!", description: "Unstaking request completed successfully", variant: "success", duration: 5000 });
      return true;
    },
    [run],
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
      const message = bulkStakeMessage(
        action,
        targets.map((item) => item.name),
        new Date(),
      );
      const response = await run<BulkStakeResponse>({
        action,
        items: targets,
        message,
        signFailed: () => FAILED[action],
        send(address, signature) {
          toast({
            title: `${VERB[action]} ${targets.length} Spooks`,
            description: "Please wait while this completes...",
            duration: 120_000,
          });
          return postStake<BulkStakeResponse>(action, action === "stake" ? "/api/stake/bulk" : "/api/unstake/bulk", {
            address,
            inscriptionIds: targets.map((item) => item.inscriptionId),
            signature,
            message,
          });
        },
        sendFailed: () => FAILED[action],
        accepted(response) {
          const done = action === "stake" ? "staked" : "unstaked";
          toast({
            title: "Success!",
            description: `${response.count} Spook${response.count === 1 ? "" : "s"} ${done}${response.alreadyStaked ? ` (${response.alreadyStaked} already ${done})` : ""}.`,
            variant: "success",
          });
        },
      });
      return response !== null;
    },
    [address, run],
  );

  return { stake, unstake, bulk, ensureIdle };
}
