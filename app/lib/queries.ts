/**
 * Data fetching in the browser with TanStack Query, set as the spec says (sections 7 and 9, DECISIONS
 * "Defaults and modes"): one retry, no refetch on window focus unless a query asks for it, entries nobody
 * shows garbage-collected after 5 minutes, and the rewards call polled every 30 s while a wallet is
 * connected. A query's key is its GET path cut into segments (see `queryKeyOf`), so invalidating a path
 * also reaches the same path with query parameters. Nothing is fetched on the server: the wallet's data
 * lives in the browser.
 */
import {
  environmentManager,
  focusManager,
  QueryClient,
  skipToken,
  useQuery,
  type QueryFilters,
  type QueryKey,
} from "@tanstack/react-query";
import { apiGet } from "./api.ts";

/** Data-fetch entries nobody reads are garbage-collected after 5 minutes (spec section 9). */
export const GC_TIME_MS = 5 * 60_000;

export const REWARDS_POLL_MS = 30_000;
export const REWARDS_STALE_MS = 10_000;

/**
 * What counts as "the window regains focus": a tab shown again (TanStack's own event), and also the window
 * getting the focus back, as when MyDoge's popup (a window of its own) closes.
 */
function onShownOrFocused(handleFocus: () => void): (() => void) | undefined {
  if (typeof window === "undefined") return undefined;
  const listener = () => handleFocus();
  window.addEventListener("visibilitychange", listener);
  window.addEventListener("focus", listener);
  return () => {
    window.removeEventListener("visibilitychange", listener);
    window.removeEventListener("focus", listener);
  };
}

/** The app's one QueryClient (made once per page load, in the layout). */
export function createQueryClient(): QueryClient {
  focusManager.setEventListener(onShownOrFocused);
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: 1,
        refetchOnWindowFocus: false,
        // A server render fetches nothing and its client ends with the request: no collection timers there.
        gcTime: environmentManager.isServer() ? Infinity : GC_TIME_MS,
      },
    },
  });
}

/**
 * The rewards call (spec section 7, DECISIONS): refetched every 30 s while shown (the wallet shows it while
 * connected), never in a hidden tab, stale after 10 s, and refetched when the window regains focus.
 */
export const REWARDS_REFRESH = {
  refetchInterval: REWARDS_POLL_MS,
  refetchIntervalInBackground: false,
  staleTime: REWARDS_STALE_MS,
  refetchOnWindowFocus: true,
} as const satisfies ApiQuerySettings;

/**
 * Views whose truth changes on the server while a page stays open (issue 27, rule 3): giveaways, entries and
 * their draws, proposals and their votes. Refetched every 30 s while the page is shown (never in a hidden
 * tab) and when the window regains focus; a status that depends on the clock flips at its time by
 * `useNow`'s boundaries, not by these refetches.
 */
export const LIVE_POLL_MS = 30_000;
export const LIVE_REFRESH = {
  refetchInterval: LIVE_POLL_MS,
  refetchIntervalInBackground: false,
  staleTime: 10_000,
  refetchOnWindowFocus: true,
} as const satisfies ApiQuerySettings;

/**
 * A GET path's query key: its segments, then its query parameters if any
 * ("/api/leaderboard?limit=3" -> ["api", "leaderboard", { limit: "3" }]).
 */
export function queryKeyOf(path: string): QueryKey {
  const [pathname, search] = path.split("?");
  const segments = pathname.split("/").filter(Boolean);
  return search ? [...segments, Object.fromEntries(new URLSearchParams(search))] : segments;
}

/** Every query of one wallet's data: its address is a segment of the path. */
export function walletQueries(address: string): QueryFilters {
  return { predicate: (query) => query.queryKey.includes(address) };
}

/** What a page may set on a query (milliseconds); the rest are the client's defaults. */
export type ApiQuerySettings = {
  staleTime?: number;
  refetchInterval?: number;
  refetchIntervalInBackground?: boolean;
  refetchOnWindowFocus?: boolean;
};

/** A GET /api path as a query: its key, and its fetch through the API client (cancellable). */
export function apiQuery<T>(path: string) {
  return { queryKey: queryKeyOf(path), queryFn: ({ signal }: { signal: AbortSignal }) => apiGet<T>(path, signal) };
}

const NOTHING_TO_READ: QueryKey = ["nothing"];

/** Reads a GET /api path through the shared cache. `path` null means "nothing to read yet". */
export function useApiQuery<T>(path: string | null, settings: ApiQuerySettings = {}) {
  const query = path === null ? null : apiQuery<T>(path);
  return useQuery<T>({ queryKey: query?.queryKey ?? NOTHING_TO_READ, queryFn: query?.queryFn ?? skipToken, ...settings });
}
