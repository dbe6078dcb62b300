/**
 * Exact accrual with boosts (issue 26, item 2): every tier × rarity × tenure combination gives a whole number
 * of units per hour and exactly R × a × b / 10,000 points per item per 24 whole hours; the accrual's SQL
 * agrees with the item-by-item computation of app/domain/boosts.ts; recalculation reproduces every credited
 * hour from the stakes and the schedule in force then; tenure is piecewise, resets on unstake, survives a
 * reorg reopen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combinedPercent, DAY_MS, itemHourUnits, nextTenureStep, tenurePercentAt, type BoostRules } from "../app/domain/boosts.ts";
import { HOUR_MS } from "../app/domain/clock.ts";
import { RARITIES, type Rarity } from "../app/domain/collections.ts";
import { perItemDailyRate, REWARD_TIERS, UNITS_PER_POINT } from "../app/domain/rewards.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { creditHour, recalculateAccruals } from "../db/queries/accrual.server.ts";
import { createSchedule, scheduleInForce } from "../db/queries/boosts.server.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";
import { at, openStake, resetIndexerState, testAddress, unitsOf } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

const PERCENTS = Array.from({ length: 21 }, (_, i) => 100 + 10 * i);
const percent = fc.constantFrom(...PERCENTS);

describe("boost arithmetic (every tier × rarity × tenure)", () => {
  it("an item's hourly credit is whole, and 24 hours of it are exactly R × a × b / 10,000 points", () => {
    // Exhaustive: 3 tiers × 21 rarity percentages × 21 tenure percentages (the cap left at the product).
    for (const tier of REWARD_TIERS) {
      for (const a of PERCENTS) {
        for (const b of PERCENTS) {
          const units = itemHourUnits(tier.dailyRatePerItem, (a * b) / 100);
          expect(Number.isInteger(units)).toBe(true);
          expect(24 * units * 10_000).toBe(tier.dailyRatePerItem * a * b * UNITS_PER_POINT);
        }
      }
    }
  });

  it("the cap bounds the product and keeps every credit whole", () => {
    fc.assert(
      fc.property(fc.constantFrom(...REWARD_TIERS), percent, percent, percent, (tier, a, b, cap) => {
        const rules: BoostRules = { rarity: { Common: a, Rare: a, Epic: a, Legendary: a }, tenure: [{ days: 1, percent: b }], cap };
        const combined = combinedPercent(rules, "Epic", b);
        expect(combined).toBe(Math.min((a * b) / 100, cap));
        expect(Number.isInteger(itemHourUnits(tier.dailyRatePerItem, combined))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("tenure is piecewise: a step applies from the first whole hour after its threshold, never before", () => {
    const rules: BoostRules = {
      ...noBoosts(),
      tenure: [
        { days: 7, percent: 110 },
        { days: 30, percent: 150 },
      ],
    };
    const from = new Date(Date.UTC(2031, 0, 1, 10, 20));
    const threshold = from.getTime() + 7 * DAY_MS; // 10:20 seven days later
    expect(tenurePercentAt(rules, from, new Date(threshold - 20 * 60_000))).toBe(100); // the hour 10:00 holds the threshold
    expect(tenurePercentAt(rules, from, new Date(threshold + 40 * 60_000))).toBe(110); // 11:00, the first whole hour after
    expect(nextTenureStep(rules, from, new Date(threshold - 60_000))).toEqual({
      at: new Date(threshold + 40 * 60_000),
      percent: 110,
      days: 7,
    });
    expect(tenurePercentAt(rules, from, new Date(from.getTime() + 40 * DAY_MS))).toBe(150);
    expect(nextTenureStep(rules, from, new Date(from.getTime() + 40 * DAY_MS))).toBeNull();
  });
});

function noBoosts(): BoostRules {
  return { rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 }, tenure: [], cap: 300 };
}

let byRarity: Map<Rarity, number[]>;

describe("accrual with boosts, against the database", () => {
  const ctx = useIndexerTests({
    seed: async (sql) => {
      await importCatalogue(sql, demoCatalogue());
      const rows = await sql<{ id: number; rarity: Rarity }[]>`select id, rarity from items order by id`;
      byRarity = new Map(RARITIES.map((rarity) => [rarity, rows.filter((row) => row.rarity === rarity).map((row) => row.id)]));
    },
  });

  /** Hour 0 of this test: far from every other test's, so each sets its own schedule from it. */
  const base = () => at(ctx.run * 2_000);
  const hourOf = (n: number) => new Date(base().getTime() + n * HOUR_MS);
  const wallet = (label: string) => testAddress(`boosts-${ctx.run}-${label}`);

  async function setSchedule(rules: BoostRules, from = hourOf(0)) {
    ctx.clock.set(new Date(from.getTime() - HOUR_MS));
    return createSchedule(ctx.db.sql, { ...rules, effectiveFrom: from }, { kind: "cli" }, new Date(from.getTime() - HOUR_MS));
  }

  const credit = (n: number) => creditHour(ctx.db.sql, { hour: hourOf(n), at: hourOf(n + 1), actor: "system", source: "cli" });

  async function unitsBetween(address: string, first: number, last: number): Promise<number> {
    const [row] = await ctx.db.sql<{ units: number }[]>`
      select coalesce(sum(amount), 0)::int8 as units from points_ledger
      where address = ${address} and kind = 'accrual' and accrual_hour between ${hourOf(first)} and ${hourOf(last)}`;
    return row.units;
  }

  const TIERS = [1, 5, 10];

  it("property: 24 credited hours match the item-by-item sum, R × a × b / 10,000 per steady item, and recalculation reproduces them", async () => {
    const steps = fc
      .uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 0, maxLength: 3 })
      .chain((days) =>
        fc.tuple(fc.constant([...days].sort((x, y) => x - y)), fc.array(percent, { minLength: days.length, maxLength: days.length })),
      )
      .map(([days, percents]) => days.map((d, i) => ({ days: d, percent: percents[i] })));
    const schedule = fc.record({
      rarity: fc.record({ Common: percent, Rare: percent, Epic: percent, Legendary: percent }),
      tenure: steps,
      cap: percent,
    });
    // Per wallet (3 tiers × 4 rarities), how many hours before hour 0 each of its items' tenure counts from.
    const ages = fc.array(fc.array(fc.integer({ min: 0, max: 22 * 24 }), { minLength: 10, maxLength: 10 }), {
      minLength: 12,
      maxLength: 12,
    });

    await fc.assert(
      fc.asyncProperty(schedule, ages, async (rules, walletAges) => {
        ctx.run += 1;
        await resetIndexerState(ctx.db.sql);
        const created = await setSchedule(rules);
        const wallets: { address: string; rarity: Rarity; tenureFrom: Date[] }[] = [];
        let w = 0;
        for (const n of TIERS) {
          for (const rarity of RARITIES) {
            const address = wallet(`w${w}`);
            const ids = byRarity
              .get(rarity)!
              .slice(n === 1 ? 0 : n === 5 ? 1 : 6)
              .slice(0, n);
            const tenureFrom = ids.map((_, i) => new Date(hourOf(0).getTime() - walletAges[w][i] * HOUR_MS - 7 * 60_000));
            for (const [i, id] of ids.entries()) await openStake(ctx.db.sql, id, address, tenureFrom[i]);
            wallets.push({ address, rarity, tenureFrom });
            w += 1;
          }
        }
        for (let h = 0; h < 24; h++) await credit(h);

        const version = (await scheduleInForce(ctx.db.sql, hourOf(0))).version;
        expect(version).toBe(created.version);
        for (const { address, rarity, tenureFrom } of wallets) {
          const rate = perItemDailyRate(tenureFrom.length);
          let expected = 0;
          let steadyUnits = 0;
          let steady = true;
          for (const from of tenureFrom) {
            const first = tenurePercentAt(rules, from, hourOf(0));
            if (tenurePercentAt(rules, from, hourOf(23)) !== first) steady = false;
            const a = rules.rarity[rarity];
            // R × a × b / 10,000 points (the product capped), in units: × 2,400
            steadyUnits += (rate * Math.min((a * first) / 100, rules.cap) * UNITS_PER_POINT) / 100;
            for (let h = 0; h < 24; h++)
              expected += itemHourUnits(rate, combinedPercent(rules, rarity, tenurePercentAt(rules, from, hourOf(h))));
          }
          const got = await unitsBetween(address, 0, 23);
          expect(got).toBe(expected);
          if (steady) expect(got).toBe(steadyUnits);
        }
        const recalculated = await recalculateAccruals(ctx.db.sql, hourOf(0), hourOf(23));
        expect(recalculated.hours).toBe(24);
        expect(recalculated.rows).toBe(24 * wallets.length);
        expect(recalculated.mismatches).toEqual([]);
      }),
      { numRuns: 3 },
    );
  }, 180_000);

  it("recalculation finds an hour the stakes and the schedule do not give", async () => {
    await setSchedule({ ...noBoosts(), rarity: { Common: 100, Rare: 120, Epic: 150, Legendary: 200 } });
    const address = wallet("tampered");
    const [legendary] = byRarity.get("Legendary")!;
    await openStake(ctx.db.sql, legendary, address, hourOf(-1));
    await credit(0);
    expect((await recalculateAccruals(ctx.db.sql, hourOf(0), hourOf(0))).mismatches).toEqual([]);
    // The stake's rarity rewritten behind the ledger's back (the owner's role): the credited hour no longer follows.
    await ctx.db.owner.sql`update stakes set rarity = 'Epic' where address = ${address}`;
    const { mismatches } = await recalculateAccruals(ctx.db.sql, hourOf(0), hourOf(0));
    expect(mismatches).toHaveLength(1);
    expect(mismatches[0]).toMatchObject({ address, ledger: { units: 20_000, boostPercentSum: 200 }, expected: { units: 15_000 } });
  });

  it("a schedule never changes an hour already credited, nor starts in the past", async () => {
    await setSchedule(noBoosts());
    const address = wallet("a");
    await openStake(ctx.db.sql, byRarity.get("Epic")![0], address, hourOf(-1));
    await credit(0);
    await credit(3);
    ctx.clock.set(hourOf(1));
    const rules = { ...noBoosts(), rarity: { Common: 300, Rare: 300, Epic: 300, Legendary: 300 } };
    await expect(createSchedule(ctx.db.sql, { ...rules, effectiveFrom: hourOf(2) }, { kind: "cli" }, hourOf(1))).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/already credited/),
    });
    await expect(createSchedule(ctx.db.sql, { ...rules, effectiveFrom: hourOf(0) }, { kind: "cli" }, hourOf(1))).rejects.toMatchObject({
      status: 400,
      message: "effectiveFrom must not be in the past",
    });
    // The database refuses it too, whoever writes.
    await expect(
      ctx.db.owner
        .sql`insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, cap_percent, created_by, created_at)
                   values (${hourOf(0)}, 100, 100, 100, 100, 300, 'cli', ${hourOf(1)})`,
    ).rejects.toThrow();
    await expect(ctx.db.sql`update boost_schedules set cap_percent = 100`).rejects.toMatchObject({ code: "42501" });
    expect(await unitsOf(ctx.db.sql, address)).toBe(2 * 10_000);
  });

  it("tenure resets on unstake and on a transfer; a stake reopened after a reorg keeps its start", async () => {
    await setSchedule({ ...noBoosts(), tenure: [{ days: 1, percent: 200 }] });
    const [a, b, c] = byRarity.get("Common")!;
    const kept = wallet("kept");
    const restaked = wallet("restaked");
    const start = new Date(hourOf(-30).getTime());
    await openStake(ctx.db.sql, a, kept, start);
    const first = await openStake(ctx.db.sql, b, restaked, start);
    // Unstaked and staked again an hour before hour 0: its tenure starts over.
    await ctx.db.sql`update stakes set ended_at = ${hourOf(-1)}, end_reason = 'unstaked' where id = ${first}`;
    await openStake(ctx.db.sql, b, restaked, hourOf(-1));
    // Ended by a transfer, then reopened by a reorg that undid it (ownership.server.ts links it by reopened_from).
    const moved = wallet("reorged");
    const before = await openStake(ctx.db.sql, c, moved, start);
    await ctx.db.sql`update stakes set ended_at = ${hourOf(-2)}, end_reason = 'transferred' where id = ${before}`;
    await ctx.db.sql`insert into stakes (item_id, address, started_at, reopened_from) values (${c}, ${moved}, ${hourOf(-1)}, ${before})`;
    await credit(0);
    expect(await unitsBetween(kept, 0, 0)).toBe(20_000); // 30 hours staked: 200%
    expect(await unitsBetween(restaked, 0, 0)).toBe(10_000); // 1 hour since it was staked again: 100%
    expect(await unitsBetween(moved, 0, 0)).toBe(20_000); // tenure from the first stake's start
    const [reopened] = await ctx.db.sql<{ tenureFrom: Date }[]>`select tenure_from from stakes where item_id = ${c} and ended_at is null`;
    expect(reopened.tenureFrom).toEqual(start);
  });

  it("without a schedule everything is 100%: the seed's economy, recorded as such", async () => {
    // This test's hours come before any schedule this file sets (they all start later).
    const early = at(-10_000);
    const address = wallet("seed");
    const ids = byRarity.get("Legendary")!.slice(0, 10);
    for (const id of ids) await openStake(ctx.db.sql, id, address, new Date(early.getTime() - 90 * DAY_MS));
    for (let h = 0; h < 24; h++) {
      await creditHour(ctx.db.sql, {
        hour: new Date(early.getTime() + h * HOUR_MS),
        at: new Date(early.getTime() + (h + 1) * HOUR_MS),
        actor: "system",
        source: "cli",
      });
    }
    expect(await unitsOf(ctx.db.sql, address)).toBe(10 * 150 * UNITS_PER_POINT);
    const [row] = await ctx.db
      .sql`select boost_version, rarity_percent_sum, boost_percent_sum from points_ledger where address = ${address} limit 1`;
    expect(row).toEqual({ boostVersion: null, rarityPercentSum: 1000, boostPercentSum: 1000 });
  });
});
