/**
 * The abuse limits' shared counts (rate_limit_hits, migration 0014): fixed windows, one row per key
 * (`{limit}:{client address}`), counted by one upsert so replicas never lose each other's hits.
 */
import type { Queryable } from "../client.server.ts";

export type WindowCount = { hits: number; resetsAt: Date };

/** Counts one hit for `key` in its current window (a new window when the last one has ended). */
export async function countHit(sql: Queryable, key: string, windowMs: number): Promise<WindowCount> {
  const [row] = await sql<WindowCount[]>`
    insert into rate_limit_hits as counted (key, hits, resets_at)
    values (${key}, 1, now() + make_interval(secs => ${windowMs / 1000}))
    on conflict (key) do update set
      hits = case when counted.resets_at <= now() then 1 else counted.hits + 1 end,
      resets_at = case when counted.resets_at <= now() then excluded.resets_at else counted.resets_at end
    returning hits, resets_at`;
  return row;
}

/** Takes back one hit (express-rate-limit's skip of a counted request). */
export async function uncountHit(sql: Queryable, key: string): Promise<void> {
  await sql`update rate_limit_hits set hits = hits - 1 where key = ${key} and hits > 1 and resets_at > now()`;
}

export async function forgetKey(sql: Queryable, key: string): Promise<void> {
  await sql`delete from rate_limit_hits where key = ${key}`;
}

/** Deletes up to `limit` rows whose window has ended, oldest first, through the resets_at index. */
export async function deleteEndedWindows(sql: Queryable, limit: number): Promise<{ count: number }> {
  return sql`
    delete from rate_limit_hits where key in (
      select key from rate_limit_hits where resets_at <= now() order by resets_at limit ${limit})`;
}
