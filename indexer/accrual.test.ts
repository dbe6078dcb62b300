import { beforeEach, describe, expect, it } from "vitest";
import { Refusal } from "../app/domain/errors.ts";
import { hourlyCreditUnits, REWARD_TIERS, UNITS_PER_POINT } from "../app/domain/rewards.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { creditHour } from "../db/queries/accrual.server.ts";
import { perItemHourlyUnitsCase } from "../db/queries/boost-sql.server.ts";
import { accrueHour, accruePending, type AccrualReport } from "./accrual.server.ts";
import { PASS_LOCKS } from "./pass-lock.server.ts";
import { indexerStatus } from "./status.server.ts";
import { at, balanceOf, openStake, resetIndexerState, testAddress, unitsOf, type SeededItem } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

const ctx = useIndexerTests({ seed: 60 });

const wallet = (label: string) => testAddress(`accrual-${ctx.run}-${label}`);
const pending = (options: Partial<Parameters<typeof accruePending>[0]> = {}) =>
  accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled", ...options }).then(credited);

function credited(report: AccrualReport) {
  if (report.skipped) throw new Error("the accrual was skipped");
  return report;
}

/** Stakes `count` fresh items for `address` from `startedAt`; returns the items used. */
let nextItem = 0;
async function stake(address: string, count: number, startedAt = at(0)): Promise<SeededItem[]> {
  const used = ctx.items.slice(nextItem % ctx.items.length, (nextItem % ctx.items.length) + count);
  nextItem += count;
  if (used.length !== count) throw new Error("not enough seeded items");
  for (const item of used) await openStake(ctx.db.sql, item.id, address, startedAt);
  return used;
}
beforeEach(() => void (nextItem = 0));

const ledgerCount = async () => (await ctx.db.sql`select count(*)::int as n from points_ledger`)[0].n as number;

describe("accrual: exact amounts", () => {
  it("the tier CASE is generated from REWARD_TIERS and agrees with hourlyCreditUnits for every N", async () => {
    expect(perItemHourlyUnitsCase("n")).toBe("case when n >= 10 then 15000 when n >= 5 then 12000 else 10000 end");
    expect(REWARD_TIERS.map((tier) => (tier.dailyRatePerItem * UNITS_PER_POINT) / 24)).toEqual([10_000, 12_000, 15_000]);
    const rows = await ctx.db.sql.unsafe(`select n, n * ${perItemHourlyUnitsCase("n")} as units from generate_series(1, 40) as n`);
    for (const row of rows) expect(Number(row.units)).toBe(hourlyCreditUnits(Number(row.n)));
  });

  it("24 credited hours give exactly N × rate points for N items, in each tier", async () => {
    const wallets = { tier1: wallet("t1"), tier2: wallet("t2"), tier3: wallet("t3") };
    await stake(wallets.tier1, 3);
    await stake(wallets.tier2, 7);
    await stake(wallets.tier3, 12);
    ctx.clock.set(at(24));
    const report = await pending();
    expect(report.hours).toHaveLength(24);
    expect(report.hours[0].hour).toEqual(at(0));
    expect(report.hours[23].hour).toEqual(at(23));
    expect(await unitsOf(ctx.db.sql, wallets.tier1)).toBe(3 * 100 * UNITS_PER_POINT);
    expect(await unitsOf(ctx.db.sql, wallets.tier2)).toBe(7 * 120 * UNITS_PER_POINT);
    expect(await unitsOf(ctx.db.sql, wallets.tier3)).toBe(12 * 150 * UNITS_PER_POINT);
    expect(await balanceOf(ctx.db.sql, wallets.tier3)).toBe(12 * 150 * UNITS_PER_POINT);
    const rows = await ctx.db.sql`
      select kind, actor, created_at, count(*)::int as n, count(distinct accrual_hour)::int as hours
      from points_ledger where address = ${wallets.tier2} group by kind, actor, created_at`;
    expect(rows).toEqual([{ kind: "accrual", actor: "system", createdAt: at(24), n: 24, hours: 24 }]);
  });

  it("tier boundaries: 4, 5, 9 and 10 items", async () => {
    const counts = [4, 5, 9, 10];
    const addresses = counts.map((n) => wallet(`n${n}`));
    for (const [i, n] of counts.entries()) await stake(addresses[i], n);
    ctx.clock.set(at(1));
    await pending();
    const units = await Promise.all(addresses.map((address) => unitsOf(ctx.db.sql, address)));
    expect(units).toEqual([4 * 10_000, 5 * 12_000, 9 * 12_000, 10 * 15_000]);
  });

  it("only whole hours count: a stake started mid-hour earns from the next hour, one ended mid-hour not in that hour", async () => {
    const late = wallet("late");
    const early = wallet("early");
    const edges = wallet("edges");
    await stake(late, 1, at(0, 30));
    const [ended] = await stake(early, 1, at(0));
    await ctx.db.sql`update stakes set ended_at = ${at(2, 59)}, end_reason = 'unstaked' where item_id = ${ended.id}`;
    const [onTheHour] = await stake(edges, 1, at(1));
    await ctx.db.sql`update stakes set ended_at = ${at(3)}, end_reason = 'unstaked' where item_id = ${onTheHour.id}`;
    ctx.clock.set(at(5));
    await pending();
    expect(await unitsOf(ctx.db.sql, late)).toBe(4 * 10_000); // hours 1-4
    expect(await unitsOf(ctx.db.sql, early)).toBe(2 * 10_000); // hours 0-1
    expect(await unitsOf(ctx.db.sql, edges)).toBe(2 * 10_000); // started at 1:00, ended at 3:00: hours 1-2
  });
});

describe("accrual: idempotent", () => {
  it("re-running an hour credits nothing", async () => {
    const address = wallet("a");
    await stake(address, 2);
    ctx.clock.set(at(3));
    expect((await pending()).hours).toHaveLength(3);
    const rows = await ledgerCount();
    expect((await pending()).hours).toHaveLength(0);
    const again = await accrueHour({ sql: ctx.db.sql, hour: at(1, 15), source: "cli" });
    expect(again).toMatchObject({ hour: at(1), wallets: 0, units: 0, alreadyCredited: true });
    expect(await ledgerCount()).toBe(rows);
    expect(await unitsOf(ctx.db.sql, address)).toBe(3 * 2 * 10_000);
  });

  it("two accrual runs at once credit once", async () => {
    const address = wallet("a");
    await stake(address, 5);
    ctx.clock.set(at(4));
    const [a, b] = await Promise.all([pending({ source: "cli" }), pending({ source: "cli" })]);
    expect(a.hours.length + b.hours.length).toBe(4);
    const [c, d] = await Promise.all([
      accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" }),
      accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" }),
    ]);
    expect([c.skipped, d.skipped].sort()).toEqual([false, true]);
    ctx.clock.set(at(5));
    const both = await Promise.all([
      accrueHour({ sql: ctx.db.sql, hour: at(4), source: "cli" }),
      accrueHour({ sql: ctx.db.sql, hour: at(4), source: "cli" }),
    ]);
    expect(both.map((credit) => credit.wallets).sort()).toEqual([0, 1]);
    expect(await unitsOf(ctx.db.sql, address)).toBe(5 * 5 * 12_000);
  });

  it("two credits of the same hour racing on separate connections (no pass lock) still credit once", async () => {
    const addresses = Array.from({ length: 30 }, (_, i) => wallet(`race${i}`));
    for (const address of addresses) await stake(address, 2);
    ctx.clock.set(at(2));
    const credit = () => creditHour(ctx.db.sql, { hour: at(1), at: at(2), actor: "system", source: "scheduled" });
    const results = await Promise.all([credit(), credit(), credit()]);
    expect(results.map((r) => r.wallets).sort((x, y) => x - y)).toEqual([0, 0, 30]);
    const [rows] = await ctx.db
      .sql`select count(*)::int as n from points_ledger where accrual_hour = ${at(1)} and address = any(${addresses})`;
    expect(rows.n).toBe(30);
    const [run_] = await ctx.db.sql`select wallets, units from accrual_runs where hour = ${at(1)}`;
    expect(run_).toEqual({ wallets: 30, units: 30 * 2 * 10_000 });
  });

  it("a crash between hours catches up on the next pass", async () => {
    const address = wallet("a");
    await stake(address, 1);
    ctx.clock.set(at(3));
    for (const hour of [0, 1, 2]) await accrueHour({ sql: ctx.db.sql, hour: at(hour), source: "scheduled" });
    // the process dies here; it comes back five hours later
    ctx.clock.set(at(8, 2));
    const report = await pending({ source: "startup" });
    expect(report.hours.map((h) => h.hour)).toEqual([3, 4, 5, 6, 7].map((h) => at(h)));
    expect(await unitsOf(ctx.db.sql, address)).toBe(8 * 10_000);
    expect((await indexerStatus(ctx.db.sql)).lastCreditedHour).toEqual(at(7));
  });

  it("a process that stops mid catch-up begins no further hour; the next pass credits the rest", async () => {
    const address = wallet("a");
    await stake(address, 1);
    ctx.clock.set(at(5, 2));
    // Stopping before the pass: nothing is begun.
    const stopped = new AbortController();
    stopped.abort();
    expect((await pending({ source: "startup", signal: stopped.signal })).hours).toEqual([]);
    // Stopping while the second hour is credited (the signal read once per hour, before it begins).
    let hoursBegun = 0;
    const stopsDuringSecond = {
      get aborted() {
        return ++hoursBegun > 2;
      },
    } as AbortSignal;
    const cut = await pending({ source: "startup", signal: stopsDuringSecond });
    expect(cut.hours.map((h) => h.hour)).toEqual([at(0), at(1)]);
    expect(await unitsOf(ctx.db.sql, address)).toBe(2 * 10_000);
    expect((await pending()).hours.map((h) => h.hour)).toEqual([2, 3, 4].map((h) => at(h)));
    expect(await unitsOf(ctx.db.sql, address)).toBe(5 * 10_000);
  });

  it("a gap in the middle (an hour credited out of order) is filled", async () => {
    const address = wallet("a");
    await stake(address, 1);
    ctx.clock.set(at(4));
    await accrueHour({ sql: ctx.db.sql, hour: at(2), source: "cli" });
    expect((await pending()).hours.map((h) => h.hour)).toEqual([at(0), at(1), at(3)]);
    expect(await unitsOf(ctx.db.sql, address)).toBe(4 * 10_000);
  });
});

describe("accrual: which hours", () => {
  it("an hour that has not ended is refused (409) and never credited", async () => {
    const address = wallet("a");
    await stake(address, 1);
    ctx.clock.set(at(5, 30));
    const refused = await accrueHour({ sql: ctx.db.sql, hour: at(5, 10), source: "cli" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).status).toBe(409);
    expect((refused as Refusal).message).toMatch(/has not ended/);
    const report = await pending();
    expect(report.hours.at(-1)?.hour).toEqual(at(4));
    expect(await unitsOf(ctx.db.sql, address)).toBe(5 * 10_000);
    expect((await accrueHour({ sql: ctx.db.sql, hour: at(4, 59), source: "cli" })).alreadyCredited).toBe(true);
  });

  it("nothing ever credited: catch-up starts at the first whole hour after the earliest stake, bounded by the limit", async () => {
    const address = wallet("a");
    await stake(address, 1, at(0, 30));
    ctx.clock.set(at(100, 5));
    const report = await pending({ maxHours: 72 });
    expect(report.hours).toHaveLength(72);
    expect(report.hours[0].hour).toEqual(at(28));
    expect(report.hours.at(-1)?.hour).toEqual(at(99));
    expect(report.beyondLimit).toBe(27); // hours 1-27
    await accrueHour({ sql: ctx.db.sql, hour: at(1), source: "cli" });
    expect(await unitsOf(ctx.db.sql, address)).toBe(73 * 10_000);

    await resetIndexerState(ctx.db.sql);
    await stake(wallet("b"), 1, at(10));
    ctx.clock.set(at(12, 1));
    expect((await pending({ maxHours: 72 })).hours.map((h) => h.hour)).toEqual([at(10), at(11)]);
  });

  it("with no stakes at all there is nothing to credit", async () => {
    ctx.clock.set(at(10));
    expect(await pending()).toMatchObject({ hours: [], wallets: 0, units: 0, beyondLimit: 0 });
  });

  it("a CLI pass is recorded with actor and source cli", async () => {
    const address = wallet("a");
    await stake(address, 1);
    ctx.clock.set(at(1));
    await pending({ source: "cli" });
    const [row] = await ctx.db.sql`select actor from points_ledger where address = ${address}`;
    expect(row.actor).toBe("cli");
    expect((await indexerStatus(ctx.db.sql)).lastAccrual).toMatchObject({
      hour: at(0),
      source: "cli",
      wallets: 1,
      units: 10_000,
      finishedAt: at(1),
    });
  });

  it("logs one JSON line per accrual with counts and duration", async () => {
    await stake(wallet("a"), 1);
    ctx.clock.set(at(2));
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("indexer", { logLevel: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    await pending({ logger });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      service: "indexer",
      msg: "accrual",
      source: "scheduled",
      hours: 2,
      wallets: 2,
      units: 20_000,
    });
    expect(lines[0].durationMs).toEqual(expect.any(Number));
  });

  it("on PostgreSQL, a scheduled pass skips while another session holds the accrual lock", async ({ skip }) => {
    if (ctx.db.engine !== "postgres") skip("advisory locks do not exclude on PGlite's single backend");
    await stake(wallet("a"), 1);
    ctx.clock.set(at(2));
    const holder = await ctx.db.sql.reserve();
    await holder`select pg_advisory_lock(${PASS_LOCKS.accrual})`;
    try {
      expect(await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" })).toEqual({ skipped: true, source: "scheduled" });
    } finally {
      await holder`select pg_advisory_unlock(${PASS_LOCKS.accrual})`;
      holder.release();
    }
    expect((await pending()).hours).toHaveLength(2);
  });
});
