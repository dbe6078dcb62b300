/**
 * The optimistic stake/unstake of the query cache (spec section 4) on a real QueryClient and MutationObserver,
 * `fetch` replaced by a stand-in server (the end-to-end tests drive the real one): marked at once, before
 * the signature; rolled back when signing or the call fails; refreshed from the server 300 ms after.
 */
import { environmentManager, isServer, MutationObserver, QueryObserver, type QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { ApiError, apiPost, paths, type Rewards, type WalletItem } from "../../lib/api.ts";
import { apiQuery, createQueryClient, queryKeyOf } from "../../lib/queries.ts";
import { REFRESH_DELAY_MS, stakeMutationOptions, StakeStepError, type StakeAnswer, type StakeVariables } from "./stake-mutation.ts";

const ADDRESS = "DTestAddressOne1111111111111111111";
const itemsKey = queryKeyOf(paths.walletItems(ADDRESS));

function item(id: number, isStaked = false): WalletItem {
  return {
    id,
    name: `Spooks #${id}`,
    inscriptionId: `${String(id).padStart(64, "a")}i0`,
    collection: "spooks",
    imageUrl: null,
    rarity: 1,
    rarityLabel: "Common",
    rank: id,
    isStaked,
    stakedAt: isStaked ? "2026-01-01T00:00:00.000Z" : null,
    rewardRate: 100,
    perDay: null,
    boost: null,
  };
}

const REWARDS = { unclaimedRewards: 4321, dailyRate: 100, rewardTier: 1, stakedCount: 1, totalCount: 2 } as Rewards;

/** The stand-in server: what GET of the wallet's items answers, and the answer of the stake call. */
let serverItems: WalletItem[];
let stakeAnswer: { status: number; body: unknown };
/** The GET paths asked for (without `_t`), in order. */
let reads: string[];
/** A GET of the items that the test holds back until it says so. */
let holdItems: Promise<void> | null;
let client: QueryClient;
let stopObservers: (() => void)[];

beforeEach(() => {
  environmentManager.setIsServer(() => false);
  serverItems = [item(1), item(2)];
  stakeAnswer = { status: 200, body: { success: true, rewards: REWARDS } };
  reads = [];
  holdItems = null;
  stopObservers = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string, init: RequestInit) => {
      if (init.method === "POST") {
        return new Response(JSON.stringify(stakeAnswer.body), {
          status: stakeAnswer.status,
          statusText: stakeAnswer.status === 409 ? "Conflict" : "OK",
        });
      }
      const path = url.replace(/[?&]_t=\d+$/, "");
      reads.push(path);
      const answer = path === paths.walletItems(ADDRESS) ? serverItems : {};
      if (path === paths.walletItems(ADDRESS) && holdItems) {
        await holdItems;
        init.signal?.throwIfAborted();
      }
      return new Response(JSON.stringify(answer), { status: 200 });
    }),
  );
  client = createQueryClient();
  client.mount();
});

afterEach(() => {
  stopObservers.forEach((stop) => stop());
  client.unmount();
  vi.unstubAllGlobals();
  environmentManager.setIsServer(() => isServer);
});

/** The page showing the wallet's items (a mounted query), loaded. */
async function showItems() {
  stopObservers.push(new QueryObserver(client, apiQuery<WalletItem[]>(paths.walletItems(ADDRESS))).subscribe(() => {}));
  await vi.waitFor(() => expect(client.getQueryData(itemsKey)).toEqual(serverItems));
  reads = [];
}

const shownItems = () => client.getQueryData<WalletItem[]>(itemsKey)!;
const staked = () => shownItems().map((shown) => shown.isStaked);

/** Resolvable by the test: the wallet's answer to the signature request. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

function stakeOf(items: WalletItem[], signature: Promise<string>, action: "stake" | "unstake" = "stake") {
  return {
    address: ADDRESS,
    action,
    items,
    sign: () => signature,
    send: (signed) => apiPost<StakeAnswer>("/api/stake", { address: ADDRESS, signature: signed }),
    accepted: vi.fn<StakeVariables["accepted"]>(),
  } satisfies StakeVariables;
}

function mutate(variables: StakeVariables) {
  const observer = new MutationObserver(client, stakeMutationOptions(client));
  return observer.mutate(variables);
}

describe("optimistic stake and unstake through the query cache", () => {
  test("marked at once, before the signature; after the server accepts, its rewards are kept and all is refetched 300 ms later", async () => {
    await showItems();
    const signature = deferred<string>();
    const variables = stakeOf([shownItems()[0]], signature.promise);
    const done = mutate(variables);
    await vi.waitFor(() => expect(staked()).toEqual([true, false]));
    expect(shownItems()[0].stakedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    serverItems = [item(1, true), item(2)];
    const started = Date.now();
    signature.resolve("signed");
    await vi.waitFor(() => expect(variables.accepted).toHaveBeenCalledWith({ success: true, rewards: REWARDS }));
    expect(client.getQueryData(queryKeyOf(paths.rewards(ADDRESS)))).toEqual(REWARDS);
    expect(reads).toEqual([]);
    await done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(REFRESH_DELAY_MS - 5);
    expect(reads).toEqual([paths.walletItems(ADDRESS)]); // the only query shown; the others are marked stale
    expect(client.getQueryState(queryKeyOf(paths.stats(ADDRESS)))).toBeUndefined();
    expect(shownItems()[0]).toEqual(item(1, true));
  });

  test("an unstake marks the item unstaked with no stakedAt", async () => {
    serverItems = [item(1, true), item(2, true)];
    await showItems();
    const signature = deferred<string>();
    const done = mutate(stakeOf([shownItems()[1]], signature.promise, "unstake"));
    await vi.waitFor(() => expect(staked()).toEqual([true, false]));
    expect(shownItems()[1].stakedAt).toBeNull();
    signature.resolve("signed");
    await done;
  });

  test("a declined signature rolls the marked items back (only them) and says the signing failed; then a refetch", async () => {
    await showItems();
    const signature = deferred<string>();
    const done = mutate(stakeOf([shownItems()[0]], signature.promise));
    await vi.waitFor(() => expect(staked()).toEqual([true, false]));
    // Meanwhile the other item changes (another action): the roll-back must leave it alone.
    client.setQueryData<WalletItem[]>(itemsKey, (items) => items!.map((shown) => (shown.id === 2 ? item(2, true) : shown)));
    const declined = new Error("User refused signed message");
    signature.reject(declined);
    await vi.waitFor(() => expect(staked()).toEqual([false, true]), { interval: 5 });
    expect(shownItems()[0].stakedAt).toBeNull();
    expect(reads).toEqual([]);

    // 300 ms later the list is fetched again: the server's truth replaces both.
    const error = await done.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StakeStepError);
    expect(error).toMatchObject({ step: "sign", cause: declined });
    expect(reads).toEqual([paths.walletItems(ADDRESS)]);
    expect(staked()).toEqual([false, false]);
  });

  test("a refused call rolls back and says the call failed, with the server's answer", async () => {
    await showItems();
    stakeAnswer = { status: 409, body: { message: "You do not own this Spook" } };
    const variables = stakeOf([shownItems()[0]], Promise.resolve("signed"));
    const error = await mutate(variables).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ step: "send", message: "You do not own this Spook" });
    expect((error as StakeStepError).cause).toBeInstanceOf(ApiError);
    expect(staked()).toEqual([false, false]);
    expect(variables.accepted).not.toHaveBeenCalled();
  });

  test("a fetch of the list under way is cancelled first, so its older answer never hides the mark", async () => {
    await showItems();
    const release = deferred<void>();
    holdItems = release.promise;
    void client.invalidateQueries({ queryKey: itemsKey });
    await vi.waitFor(() => expect(reads).toEqual([paths.walletItems(ADDRESS)]));
    const query = client.getQueryCache().find({ queryKey: itemsKey })!;
    expect(query.state.fetchStatus).toBe("fetching");

    const signature = deferred<string>();
    const done = mutate(stakeOf([shownItems()[0]], signature.promise));
    await vi.waitFor(() => expect(staked()).toEqual([true, false]));
    expect(query.state.fetchStatus).toBe("idle");
    release.resolve(); // the old answer (nothing staked) arrives now
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(staked()).toEqual([true, false]);
    signature.reject(new Error("User refused signed message"));
    await done.catch(() => {});
  });

  test("an action's refresh waits while another action is under way (its mark stays)", async () => {
    await showItems();
    const first = mutate(stakeOf([shownItems()[0]], Promise.resolve("signed")));
    const secondSignature = deferred<string>();
    const second = mutate(stakeOf([shownItems()[1]], secondSignature.promise));
    await first;
    expect(reads).toEqual([]);
    expect(staked()).toEqual([true, true]);

    serverItems = [item(1, true), item(2, true)];
    secondSignature.resolve("signed");
    await second;
    expect(reads).toEqual([paths.walletItems(ADDRESS)]);
    expect(staked()).toEqual([true, true]);
  });
});
