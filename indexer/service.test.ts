import { describe, expect, it } from "vitest";
import { silentLogger } from "../app/utils/logger.server.ts";
import { startIndexer } from "./service.server.ts";
import { at, indexerConfig, openStake, testAddress, unitsOf } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

const OWNER = testAddress("service-owner");

const ctx = useIndexerTests({ seed: 12, chainOwner: () => OWNER });

const syncRuns = async () =>
  ctx.db.sql<{ source: string; itemsChecked: number }[]>`select source, items_checked from sync_runs order by id`;

function start(overrides: Parameters<typeof indexerConfig>[0] = {}) {
  const config = { ...indexerConfig(overrides), ordUrl: ctx.chain.url };
  return startIndexer({ sql: ctx.db.sql, config, logger: silentLogger });
}

describe("indexer service", () => {
  it("runs a sync pass and an accrual catch-up at start", async () => {
    const address = testAddress("service-staker");
    await openStake(ctx.db.sql, ctx.items[0].id, address, at(0));
    ctx.clock.set(at(5, 1));
    const indexer = await start({ syncCron: "0 0 1 1 *" });
    await indexer.ready;
    await indexer.stop();
    expect(await syncRuns()).toEqual([{ source: "startup", itemsChecked: 12 }]);
    expect(await unitsOf(ctx.db.sql, address)).toBe(5 * 10_000);
    const [run] = await ctx.db.sql`select source from accrual_runs order by hour desc limit 1`;
    expect(run.source).toBe("startup");
  });

  it("prunes expired rows at start (housekeeping), leaving live ones", async () => {
    const session = (hash: string, expiresAt: Date) =>
      ctx.db.sql`insert into sessions (token_hash, address, created_at, expires_at) values (${hash}, ${OWNER}, ${at(-48)}, ${expiresAt})`;
    await session("e".repeat(64), at(-1));
    await session("f".repeat(64), at(1));
    const indexer = await start({ syncCron: "0 0 1 1 *" });
    await indexer.ready;
    await indexer.stop();
    expect(await ctx.db.sql`select token_hash from sessions where address = ${OWNER}`).toEqual([{ tokenHash: "f".repeat(64) }]);
  });

  it("runs scheduled sync passes on its cron, and none after stop()", async () => {
    const indexer = await start({ syncCron: "* * * * * *" });
    await indexer.ready;
    for (let waited = 0; waited < 4000 && !(await syncRuns()).some((r) => r.source === "scheduled"); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await indexer.stop();
    const runs = await syncRuns();
    expect(runs.some((r) => r.source === "scheduled")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await syncRuns()).toHaveLength(runs.length);
  });

  it("stop() cuts an in-flight sync short, records it, and waits for it", async () => {
    ctx.chain.setLatency(100);
    ctx.chain.resetStats();
    const indexer = await start({ syncCron: "0 0 1 1 *", concurrency: 1 });
    // In flight: the start-up pass has asked for its first item (each answer takes 100 ms, one at a time).
    await expect.poll(() => ctx.chain.stats().byRoute.inscription ?? 0, { interval: 10 }).toBeGreaterThan(0);
    const began = Date.now();
    await indexer.stop();
    expect(Date.now() - began).toBeLessThan(2000);
    const runs = await syncRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0].itemsChecked).toBeLessThan(12);
    await indexer.stop(); // a second stop is harmless
  });

  it("refuses an invalid cron expression", async () => {
    await expect(start({ syncCron: "every minute" })).rejects.toThrow(/INDEXER_SYNC_CRON/);
    await expect(start({ accrualCron: "61 * * * *" })).rejects.toThrow(/INDEXER_ACCRUAL_CRON/);
  });
});
