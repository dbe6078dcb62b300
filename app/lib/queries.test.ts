/**
 * The data-fetch settings of the spec (sections 7 and 9, DECISIONS) on a real QueryClient, with `fetch`
 * replaced by a stand-in server (the end-to-end tests cover the real one). TanStack Query is told it runs in
 * a browser, except for the server-render test.
 */
import { environmentManager, isServer, QueryClientProvider, QueryObserver, type QueryClient } from "@tanstack/react-query";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { paths } from "./api.ts";
import {
  apiQuery,
  createQueryClient,
  GC_TIME_MS,
  queryKeyOf,
  REWARDS_REFRESH,
  useApiQuery,
  walletQueries,
  type ApiQuerySettings,
} from "./queries.ts";

const ADDRESS = "DTestAddressOne1111111111111111111";
const OTHER = "DTestAddressTwo2222222222222222222";

/** The paths `fetch` was asked for (without the `_t` timestamp), in order. */
let requested: string[];
let failing: boolean;

/** The page's window and document: the events TanStack Query hears, and whether the tab is shown. */
let page: { window: EventTarget; document: { visibilityState: "visible" | "hidden" } };

/** The window regains focus (e.g. MyDoge's popup closed). */
const focusWindow = () => page.window.dispatchEvent(new Event("focus"));
/** The tab is hidden, or shown again. */
function setTabShown(shown: boolean) {
  page.document.visibilityState = shown ? "visible" : "hidden";
  page.window.dispatchEvent(new Event("visibilitychange"));
}

beforeEach(() => {
  environmentManager.setIsServer(() => false);
  page = { window: new EventTarget(), document: { visibilityState: "visible" } };
  vi.stubGlobal("window", page.window);
  vi.stubGlobal("document", page.document);
  requested = [];
  failing = false;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      const path = url.replace(/[?&]_t=\d+$/, "");
      requested.push(path);
      if (failing) return new Response(JSON.stringify({ message: "down" }), { status: 503, statusText: "Service Unavailable" });
      return new Response(JSON.stringify({ path, answer: requested.length }), { status: 200 });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  environmentManager.setIsServer(() => isServer);
});

const countOf = (path: string) => requested.filter((seen) => seen === path).length;

/** A client as the page has it: mounted (it hears window focus and the network coming back). */
function mountedClient(): QueryClient {
  const client = createQueryClient();
  client.mount();
  clients.push(client);
  return client;
}
const clients: QueryClient[] = [];
afterEach(() => clients.splice(0).forEach((client) => client.unmount()));

/** A reader of `path` (what a mounted useApiQuery is); answers the unsubscribe. */
function observe(client: QueryClient, path: string, settings: ApiQuerySettings = {}) {
  return new QueryObserver(client, { ...apiQuery(path), ...settings }).subscribe(() => {});
}

describe("the query client's defaults (spec section 9)", () => {
  test("one retry, no refetch on window focus, garbage collection after 5 minutes (never on the server)", () => {
    expect(createQueryClient().getDefaultOptions().queries).toMatchObject({ retry: 1, refetchOnWindowFocus: false, gcTime: 300_000 });
    expect(GC_TIME_MS).toBe(5 * 60_000);
    environmentManager.setIsServer(() => true);
    expect(createQueryClient().getDefaultOptions().queries?.gcTime).toBe(Infinity);
  });

  test("a failing call is tried twice in all (one retry, after 1 s), then reports the server's message", async () => {
    vi.useFakeTimers();
    failing = true;
    const client = mountedClient();
    const stop = observe(client, paths.stats(ADDRESS));
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(paths.stats(ADDRESS))).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(countOf(paths.stats(ADDRESS))).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(countOf(paths.stats(ADDRESS))).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(countOf(paths.stats(ADDRESS))).toBe(2);
    const query = client.getQueryCache().find({ queryKey: queryKeyOf(paths.stats(ADDRESS)) });
    expect(query?.state.status).toBe("error");
    expect(query?.state.error?.message).toBe("down");
    stop();
  });

  test("an entry is kept while shown and dropped 5 minutes after its last reader left", async () => {
    vi.useFakeTimers();
    const client = mountedClient();
    const key = queryKeyOf(paths.giveaways());
    const first = observe(client, paths.giveaways());
    const second = observe(client, paths.giveaways());
    await vi.advanceTimersByTimeAsync(GC_TIME_MS * 3);
    first();
    await vi.advanceTimersByTimeAsync(GC_TIME_MS * 3);
    expect(client.getQueryData(key)).toBeDefined();
    second();
    await vi.advanceTimersByTimeAsync(GC_TIME_MS - 1000);
    expect(client.getQueryData(key)).toBeDefined();
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.getQueryCache().find({ queryKey: key })).toBeUndefined();
  });

  test("a query that does not ask for it is not refetched when the window regains focus", async () => {
    vi.useFakeTimers();
    const client = mountedClient();
    const stop = observe(client, paths.stats(ADDRESS));
    await vi.advanceTimersByTimeAsync(60_000);
    focusWindow();
    setTabShown(false);
    setTabShown(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(paths.stats(ADDRESS))).toBe(1);
    stop();
  });
});

describe("the rewards call (spec section 7, DECISIONS)", () => {
  test("refetched every 30 s while shown, and not at all in a hidden tab", async () => {
    vi.useFakeTimers();
    const client = mountedClient();
    const rewards = paths.rewards(ADDRESS);
    const stop = observe(client, rewards, REWARDS_REFRESH);
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(1);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(countOf(rewards)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(countOf(rewards)).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(countOf(rewards)).toBe(4);

    setTabShown(false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(countOf(rewards)).toBe(4);
    setTabShown(true); // stale by now: refetched when shown again, then every 30 s
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(5);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(countOf(rewards)).toBe(6);
    stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(countOf(rewards)).toBe(6);
  });

  test("fresh for 10 s (a new reader does not refetch), then refetched by a new reader, on window focus and when the tab is shown", async () => {
    vi.useFakeTimers();
    const client = mountedClient();
    const rewards = paths.rewards(ADDRESS);
    const stop = observe(client, rewards, REWARDS_REFRESH);
    await vi.advanceTimersByTimeAsync(9_000);
    observe(client, rewards, { staleTime: REWARDS_REFRESH.staleTime })();
    focusWindow();
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(1);

    await vi.advanceTimersByTimeAsync(1_000);
    observe(client, rewards, { staleTime: REWARDS_REFRESH.staleTime })();
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(2);

    await vi.advanceTimersByTimeAsync(10_000);
    focusWindow();
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(3);

    await vi.advanceTimersByTimeAsync(10_000);
    setTabShown(false);
    setTabShown(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(countOf(rewards)).toBe(4);
    stop();
  });
});

describe("query keys from the API paths", () => {
  test("a path's segments, then its query parameters", () => {
    expect(queryKeyOf(paths.rewards(ADDRESS))).toEqual(["api", "rewards", ADDRESS]);
    expect(queryKeyOf(paths.leaderboard(3))).toEqual(["api", "leaderboard", { limit: "3" }]);
    expect(queryKeyOf(paths.leaderboard())).toEqual(["api", "leaderboard"]);
  });

  test("invalidating a path refetches it with any query parameters, and nothing else", async () => {
    const client = mountedClient();
    const stops = [observe(client, paths.leaderboard(3)), observe(client, paths.giveaways())];
    await vi.waitFor(() => expect(client.isFetching()).toBe(0));
    expect(requested).toHaveLength(2);
    await client.invalidateQueries({ queryKey: queryKeyOf(paths.leaderboard()) });
    expect(requested).toEqual(["/api/leaderboard?limit=3", "/api/giveaways", "/api/leaderboard?limit=3"]);
    stops.forEach((stop) => stop());
  });

  test("a wallet's queries are removed on disconnect; another wallet's and the shared ones stay", () => {
    const client = createQueryClient();
    for (const path of [
      paths.rewards(ADDRESS),
      paths.walletItems(ADDRESS),
      paths.userEntries(ADDRESS),
      paths.rewards(OTHER),
      paths.giveaways(),
    ]) {
      client.setQueryData(queryKeyOf(path), { path });
    }
    client.removeQueries(walletQueries(ADDRESS));
    const left = client
      .getQueryCache()
      .getAll()
      .map((query) => query.queryKey);
    expect(left).toEqual([queryKeyOf(paths.rewards(OTHER)), queryKeyOf(paths.giveaways())]);
  });
});

describe("useApiQuery on the server", () => {
  test("renders the loading state and fetches nothing (the wallet's data lives in the browser)", () => {
    environmentManager.setIsServer(() => true);
    function Points() {
      const query = useApiQuery<{ answer: number }>(paths.rewards(ADDRESS), REWARDS_REFRESH);
      return createElement("p", null, query.isLoading ? "loading" : `answer ${query.data?.answer}`);
    }
    const client = createQueryClient();
    const html = renderToString(createElement(QueryClientProvider, { client }, createElement(Points)));
    expect(html).toBe("<p>loading</p>");
    expect(requested).toEqual([]);
    expect(client.getQueryData(queryKeyOf(paths.rewards(ADDRESS)))).toBeUndefined();
  });
});
