/**
 * The rate limits' rows are deleted as fast as they are created (issue 23, item 7): a flood from 20,000
 * distinct addresses through the real store on the real database leaves no pile of ended windows behind, and
 * housekeeping deletes what a stopped web server left, in bounded batches.
 */
import type { Options } from "express-rate-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../app/utils/logger.server.ts";
import { pruneExpired } from "../db/queries/housekeeping.server.ts";
import { sleep } from "../tests/support/net.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { PostgresRateLimitStore } from "./rate-limit-store.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

/** Longer than the store's clean-up interval (1 s), as every real window is (one minute). */
const WINDOW_MS = 3000;
const KEYS = 20_000;

const rows = async (where: "all" | "ended") => {
  const [row] =
    where === "all"
      ? await db.sql<{ n: number }[]>`select count(*)::int as n from rate_limit_hits`
      : await db.sql<{ n: number }[]>`select count(*)::int as n from rate_limit_hits where resets_at <= now()`;
  return row.n;
};

describe("rate_limit_hits", () => {
  it("a flood of 20,000 distinct addresses leaves no pile of ended windows: they go as new rows come in", async () => {
    const store = new PostgresRateLimitStore(db.sql, "flood/1/3000:", silentLogger);
    store.init({ windowMs: WINDOW_MS } as Options);
    const started = performance.now();
    let next = 0;
    let most = 0;
    const sampler = setInterval(() => void rows("all").then((n) => (most = Math.max(most, n))), 250);
    // As many clients at once as the pool has connections: every request a new address.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < KEYS) await store.increment(`203.0.${next++}`);
      }),
    );
    const floodSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    // Then ordinary traffic for three seconds, after every flood window ended.
    await sleep(WINDOW_MS * 1.2);
    for (let i = 0; i < 30; i++) {
      await store.increment(`198.51.100.${i % 3}`);
      await sleep(100);
    }
    const ended = await rows("ended");
    const left = await rows("all");
    console.info(`${KEYS} addresses in ${floodSeconds.toFixed(1)} s; at most ${most} rows during the flood; ${left} left, ${ended} ended`);
    expect(ended).toBeLessThan(1000); // at most the last second's, never the flood's
    expect(left).toBeLessThan(1000);
  }, 180_000);

  it("housekeeping deletes 20,000 ended windows in batches of its size", async () => {
    await db.sql`
      insert into rate_limit_hits (key, hits, resets_at)
      select 'reads/600/60000:10.0.' || i, 1, now() - interval '1 minute' from generate_series(1, ${KEYS}) as i`;
    await db.sql`insert into rate_limit_hits (key, hits, resets_at) values ('reads/600/60000:live', 1, now() + interval '1 minute')`;
    const pruned = await pruneExpired(db.sql, new Date(), 1000);
    expect(pruned.rateLimitHits).toBeGreaterThanOrEqual(KEYS);
    expect(await db.sql`select key from rate_limit_hits where key like 'reads/600/60000:10.0.%'`).toHaveLength(0);
    expect(await db.sql`select key from rate_limit_hits where key = 'reads/600/60000:live'`).toHaveLength(1);
  });
});
