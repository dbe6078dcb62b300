/**
 * One stake or unstake action (single or bulk) as a TanStack mutation over the query cache (spec sections 4
 * and 7): the items are marked at once (after stopping any fetch of the list that would overwrite the mark),
 * put back as they were if signing or the call fails, and 300 ms after the action the wallet's items, stats
 * and rewards and the leaderboard are fetched again from the server, which is the truth.
 */
import type { QueryClient, UseMutationOptions } from "@tanstack/react-query";
import type { StakeAction } from "../../domain/messages.ts";
import { paths, type Rewards, type WalletItem } from "../../lib/api.ts";
import { queryKeyOf } from "../../lib/queries.ts";

export const REFRESH_DELAY_MS = 300;

/** What every stake and unstake answer may carry: the wallet's rewards after the change. */
export type StakeAnswer = { rewards?: Rewards };

/** One action: the wallet, the items it changes, how it is signed and sent. */
export type StakeVariables = {
  address: string;
  action: StakeAction;
  items: readonly WalletItem[];
  /** Asks the wallet for the ONE signature of the action. */
  sign: () => Promise<string>;
  /** Sends the signed action; throws when the server refuses it. */
  send: (signature: string) => Promise<StakeAnswer>;
  /** What shows once the server accepted, before the refresh (toasts); `answer` is what `send` resolved. */
  accepted: (answer: StakeAnswer) => void;
};

/** Which step failed (the toasts differ): the signature, or the call. `cause` is the original error. */
export class StakeStepError extends Error {
  constructor(
    readonly step: "sign" | "send",
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "StakeStepError";
  }
}

/** The staked state of each marked item before the mark, for the roll-back. */
type Marked = { before: Map<string, Pick<WalletItem, "isStaked" | "stakedAt">> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setStaked(client: QueryClient, address: string, changes: Map<string, Pick<WalletItem, "isStaked" | "stakedAt">>) {
  client.setQueryData<WalletItem[]>(queryKeyOf(paths.walletItems(address)), (items) =>
    items?.map((item) => {
      const change = changes.get(item.inscriptionId);
      return change ? { ...item, ...change } : item;
    }),
  );
}

/** Refetches what an action changes: the wallet's items, stats and rewards, and the leaderboard. */
export function refreshAfterStaking(client: QueryClient, address: string): Promise<unknown> {
  return Promise.all(
    [paths.walletItems(address), paths.stats(address), paths.rewards(address), paths.leaderboard()].map((path) =>
      client.invalidateQueries({ queryKey: queryKeyOf(path) }),
    ),
  );
}

export const STAKING_MUTATION_KEY = ["staking"];

export function stakeMutationOptions(client: QueryClient): UseMutationOptions<StakeAnswer, StakeStepError, StakeVariables, Marked> {
  return {
    mutationKey: STAKING_MUTATION_KEY,
    async mutationFn({ sign, send }) {
      let signature: string;
      try {
        signature = await sign();
      } catch (error) {
        throw new StakeStepError("sign", error);
      }
      try {
        return await send(signature);
      } catch (error) {
        throw new StakeStepError("send", error);
      }
    },
    async onMutate({ address, action, items }) {
      const itemsKey = queryKeyOf(paths.walletItems(address));
      // A list fetched before the action finished must not overwrite the mark.
      await client.cancelQueries({ queryKey: itemsKey });
      const ids = new Set(items.map((item) => item.inscriptionId));
      const current = client.getQueryData<WalletItem[]>(itemsKey) ?? [];
      const before = new Map(
        current
          .filter((item) => ids.has(item.inscriptionId))
          .map((item) => [item.inscriptionId, { isStaked: item.isStaked, stakedAt: item.stakedAt }]),
      );
      const staked = action === "stake";
      const mark = { isStaked: staked, stakedAt: staked ? new Date().toISOString() : null };
      setStaked(client, address, new Map([...before.keys()].map((id) => [id, mark])));
      return { before };
    },
    onError(_error, { address }, marked) {
      if (marked) setStaked(client, address, marked.before);
    },
    onSuccess(answer, { address, accepted }) {
      if (answer.rewards) client.setQueryData(queryKeyOf(paths.rewards(address)), answer.rewards);
      accepted(answer);
    },
    async onSettled(_answer, _error, { address }) {
      await sleep(REFRESH_DELAY_MS);
      // Another action still under way refreshes when it ends: a refetch now would undo its mark.
      if (client.isMutating({ mutationKey: STAKING_MUTATION_KEY }) > 1) return;
      await refreshAfterStaking(client, address);
    },
  };
}
