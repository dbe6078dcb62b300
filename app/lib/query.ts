/**
 * A very small shared cache for GET /api calls (what the spec's pages did with a query library):
 * one entry per path, shared by every component that reads it, with stale time, polling, refetch on
 * window focus, one retry, optimistic writes and invalidation by prefix, and garbage collection: an entry
 * nobody shows is dropped 5 minutes after its last reader left (spec section 9, `GC_TIME_MS`). About 150
 * lines instead of a dependency; nothing here runs on the server (the wallet's data lives in the browser).
 */
import { useCallback, useEffect, useSyncExternalStore } from "react";
import { apiGet } from "./api.ts";

export type QueryState<T> = {
  data: T | undefined;
  error: Error | undefined;
  /** True until the first answer (or final error) arrives. */
  isLoading: boolean;
  isFetching: boolean;
  updatedAt: number;
};

type Entry = {
  state: QueryState<unknown>;
  listeners: Set<() => void>;
  inFlight: Promise<void> | null;
  /** Bumped by writes and invalidations so a slower, older fetch never overwrites newer data. */
  version: number;
  /** The pending garbage collection while nobody reads the entry. */
  gcTimer: ReturnType<typeof setTimeout> | null;
};

/** Data-fetch entries nobody reads are garbage-collected after 5 minutes (spec section 9). */
export const GC_TIME_MS = 5 * 60_000;

const INITIAL: QueryState<never> = { data: undefined, error: undefined, isLoading: true, isFetching: false, updatedAt: 0 };
const IDLE: QueryState<never> = { ...INITIAL, isLoading: false };
const cache = new Map<string, Entry>();

function entryOf(key: string): Entry {
  let entry = cache.get(key);
  if (!entry) {
    entry = { state: INITIAL, listeners: new Set(), inFlight: null, version: 0, gcTimer: null };
    cache.set(key, entry);
    scheduleGc(key, entry);
  }
  return entry;
}

/** Drops `entry` GC_TIME_MS from now unless someone reads it meanwhile. */
function scheduleGc(key: string, entry: Entry) {
  if (entry.gcTimer) clearTimeout(entry.gcTimer);
  entry.gcTimer = setTimeout(() => {
    entry.gcTimer = null;
    if (entry.listeners.size === 0 && cache.get(key) === entry) cache.delete(key);
  }, GC_TIME_MS);
}

/** Adds a reader of `key` (what `useQuery` does while mounted); answers the removal. */
export function subscribeQuery(key: string, listener: () => void): () => void {
  const entry = entryOf(key);
  entry.listeners.add(listener);
  if (entry.gcTimer) {
    clearTimeout(entry.gcTimer);
    entry.gcTimer = null;
  }
  return () => {
    entry.listeners.delete(listener);
    if (entry.listeners.size === 0 && cache.get(key) === entry) scheduleGc(key, entry);
  };
}

function setState(entry: Entry, next: Partial<QueryState<unknown>>) {
  entry.state = { ...entry.state, ...next };
  for (const listener of entry.listeners) listener();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fetches `key` now (joining a fetch already running). Retries once after 1 s. Never rejects. */
export function fetchQuery(key: string): Promise<void> {
  const entry = entryOf(key);
  if (entry.inFlight) return entry.inFlight;
  const version = ++entry.version;
  setState(entry, { isFetching: true });
  const promise: Promise<void> = (async () => {
    let error: Error | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const data = await apiGet<unknown>(key);
        if (entry.version === version) setState(entry, { data, error: undefined, isLoading: false, isFetching: false, updatedAt: Date.now() });
        else setState(entry, { isFetching: false });
        return;
      } catch (caught) {
        error = caught as Error;
        if (attempt === 0) await sleep(1000);
      }
    }
    if (entry.version === version) setState(entry, { error, isLoading: false, isFetching: false, updatedAt: Date.now() });
  })().finally(() => {
    if (entry.inFlight === promise) entry.inFlight = null;
  });
  entry.inFlight = promise;
  return promise;
}

/** Refetches every cached path starting with `prefix` that someone is showing; others refetch when next read. */
export function invalidateQueries(prefix: string): Promise<void[]> {
  const pending: Promise<void>[] = [];
  for (const [key, entry] of cache) {
    if (!key.startsWith(prefix)) continue;
    entry.state = { ...entry.state, updatedAt: 0 };
    entry.version++;
    entry.inFlight = null;
    if (entry.listeners.size > 0) pending.push(fetchQuery(key));
  }
  return Promise.all(pending);
}

/** Writes data directly (optimistic updates and roll-backs); returns the previous data. */
export function setQueryData<T>(key: string, update: T | ((previous: T | undefined) => T)): T | undefined {
  const entry = entryOf(key);
  const previous = entry.state.data as T | undefined;
  const data = typeof update === "function" ? (update as (p: T | undefined) => T)(previous) : update;
  entry.version++;
  setState(entry, { data, error: undefined, isLoading: false, updatedAt: Date.now() });
  return previous;
}

export function getQueryData<T>(key: string): T | undefined {
  return cache.get(key)?.state.data as T | undefined;
}

/** Forgets cached paths starting with `prefix` (e.g. a wallet's data after disconnect). */
export function removeQueries(prefix: string) {
  for (const [key, entry] of cache) {
    if (!key.startsWith(prefix)) continue;
    entry.version++;
    entry.inFlight = null;
    setState(entry, INITIAL);
    if (entry.listeners.size === 0) {
      if (entry.gcTimer) clearTimeout(entry.gcTimer);
      cache.delete(key);
    }
  }
}

export type QueryOptions = {
  /** Data younger than this is fresh: a new reader does not refetch it (ms, default 0). */
  staleTime?: number;
  /** Poll while mounted (ms). */
  refetchInterval?: number;
  /** Refetch stale data when the window regains focus. */
  refetchOnFocus?: boolean;
};

/** Reads a GET /api path through the shared cache. `key` null means "nothing to read yet". */
export function useQuery<T>(key: string | null, { staleTime = 0, refetchInterval, refetchOnFocus = false }: QueryOptions = {}) {
  const subscribe = useCallback(
    (listener: () => void) => {
      if (!key) return () => {};
      return subscribeQuery(key, listener);
    },
    [key],
  );
  const state = useSyncExternalStore(
    subscribe,
    () => (key ? (entryOf(key).state as QueryState<T>) : IDLE),
    () => (key ? INITIAL : IDLE) as QueryState<T>,
  );

  useEffect(() => {
    if (!key) return;
    const refreshIfStale = () => {
      const entry = entryOf(key);
      if (Date.now() - entry.state.updatedAt >= staleTime || entry.state.updatedAt === 0) void fetchQuery(key);
    };
    refreshIfStale();
    const timer = refetchInterval ? setInterval(() => void fetchQuery(key), refetchInterval) : undefined;
    const onFocus = () => refreshIfStale();
    if (refetchOnFocus) window.addEventListener("focus", onFocus);
    return () => {
      if (timer) clearInterval(timer);
      if (refetchOnFocus) window.removeEventListener("focus", onFocus);
    };
  }, [key, staleTime, refetchInterval, refetchOnFocus]);

  const refetch = useCallback(() => (key ? fetchQuery(key) : Promise.resolve()), [key]);
  return { ...state, refetch };
}
