/**
 * Hot reads (issue 36, item 1; docs/decisions.md "Hot reads kept current"): what the busiest public reads share
 * and what changes rarely (the leaderboard's longest list, which also gives every wallet its rank; the boost
 * schedule in force) is kept in each process for one state of the database and one hour, and reused until
 * either moves. A state is named by its stamp, which every change such a value depends on moves:
 * - the public log's size (log_head, given at commit: every ledger row, stake and boost schedule, and every
 *   audited change such as a cancelled schedule or recalculated balances, appends to the log in the
 *   transaction that writes it, migration 0040);
 * - hot_reads_head (migration 0060), which every change of ownership (not logged) and every rotation of the
 *   log (which starts its size again) moves.
 * A request reads the stamp in the statement it answers from, so what it answers and the kept value it uses
 * are of one state; web replicas on one database each keep their own and see each other's changes through it.
 */
import type { Queryable, Sql } from "../client.server.ts";

/** `… as stamp`: the state's name, for the select list of a statement that reads what it depends on. */
export const stampColumn = (sql: Queryable) => sql`
  (select size from log_head)::text || ':' || (select moves from hot_reads_head)::text as stamp`;

/** A value computed from one state (`stamp`), for the hour starting at `hour` (ms). */
export type Stamped<T> = { stamp: string; hour: number; value: T };

type Pending<T> = { startedAt: number; hour: number; promise: Promise<Stamped<T>> };
type Slot<T> = { kept?: Stamped<T>; pending?: Pending<T> };

/**
 * One value per database pool, kept for the state and hour it was computed at. `compute` reads the stamp and
 * the value in one snapshot (a repeatable-read transaction). Requests that find it out of date share one
 * computation, so a change costs one computation per process, not one per request.
 */
export class KeptValue<T> {
  private readonly slots = new WeakMap<Sql, Slot<T>>();

  constructor(private readonly compute: (sql: Sql, hour: number) => Promise<Stamped<T>>) {}

  /**
   * The value for `stamp` (a state this request read) when kept; otherwise one of a state current at some
   * moment after `since` (performance.now() before the request read its stamp): the one being computed, when
   * that began after `since`, or a new one. Its stamp tells which it is.
   */
  async since(sql: Sql, since: number, hour: number, stamp: string): Promise<Stamped<T>> {
    let slot = this.slots.get(sql);
    if (!slot) this.slots.set(sql, (slot = {}));
    for (;;) {
      if (slot.kept && slot.kept.hour === hour && slot.kept.stamp === stamp) return slot.kept;
      const pending = slot.pending;
      if (!pending || pending.hour !== hour) break;
      const computed = await pending.promise;
      if (pending.startedAt >= since || computed.stamp === stamp) return computed;
    }
    const pending: Pending<T> = { startedAt: performance.now(), hour, promise: this.compute(sql, hour) };
    slot.pending = pending;
    try {
      const computed = await pending.promise;
      if (slot.pending === pending) slot.kept = computed;
      return computed;
    } finally {
      if (slot.pending === pending) slot.pending = undefined;
    }
  }
}

/** Runs `work` on one snapshot that only reads, its stamp first. */
export async function onOneSnapshot<T>(sql: Sql, hour: number, work: (tx: Queryable) => Promise<T>): Promise<Stamped<T>> {
  return await sql.begin("isolation level repeatable read read only", async (tx) => {
    const [{ stamp }] = await tx<{ stamp: string }[]>`select ${stampColumn(tx)}`;
    return { stamp, hour, value: await work(tx) };
  });
}

/** A key's kept value: the mark and hour it was computed for, and its weight against the capacity. */
type KeptEntry<T> = { mark: string; hour: number; value: T; weight: number };

/**
 * `value` and everything it holds, frozen: a value kept for many requests can then be changed by none, and its
 * answer's JSON is made once (app/utils/api.server.ts `answer`).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}

/**
 * Values kept per key (a wallet), each for the mark of the state it was computed from and the hour, at most
 * `capacity` in weight per database pool, the least recently used dropped first. A value is answered only for the
 * mark and hour it was computed for; the next computation replaces it. Kept values are frozen (`deepFreeze`).
 */
export class KeptPerKey<T> {
  private readonly pools = new WeakMap<Sql, { entries: Map<string, KeptEntry<T>>; weight: number }>();

  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: T) => number,
  ) {}

  /** Whether a value is kept for `key` and `hour`, whatever its mark. */
  holds(sql: Sql, key: string, hour: number): boolean {
    return this.pools.get(sql)?.entries.get(key)?.hour === hour;
  }

  get(sql: Sql, key: string, mark: string, hour: number): T | undefined {
    const pool = this.pools.get(sql);
    const entry = pool?.entries.get(key);
    if (!pool || !entry || entry.mark !== mark || entry.hour !== hour) return undefined;
    // Map order is insertion order: moved to the end, it is the most recently used.
    pool.entries.delete(key);
    pool.entries.set(key, entry);
    return entry.value;
  }

  set(sql: Sql, key: string, mark: string, hour: number, value: T): void {
    let pool = this.pools.get(sql);
    if (!pool) this.pools.set(sql, (pool = { entries: new Map(), weight: 0 }));
    const old = pool.entries.get(key);
    if (old) {
      pool.entries.delete(key);
      pool.weight -= old.weight;
    }
    deepFreeze(value);
    const weight = this.weigh(value);
    if (weight > this.capacity) return;
    pool.entries.set(key, { mark, hour, value, weight });
    pool.weight += weight;
    for (const [oldest, entry] of pool.entries) {
      if (pool.weight <= this.capacity) break;
      pool.entries.delete(oldest);
      pool.weight -= entry.weight;
    }
  }
}
