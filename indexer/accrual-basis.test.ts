/**
 * The accrual's basis (issue 26, item 5; migration 0024): each credited hour starts from the wallets'
 * figures of the hour before and recomputes only those that can differ; a new schedule's first hour, from the
 * basis the pass before switched to it (issue 36, item 2; migrations 0070 and 0120). Random histories of stakes opened
 * and ended mid-hour, ended behind the basis's back, deleted (a reorg), crossing tenure steps, a schedule
 * changed on the way (the basis switched to it ahead or not) and hours credited out of order: every hour, as it is
 * credited, must be what recalculation computes item by item from the stakes and the schedule in force
 * (app/domain/boosts.ts, not the basis's SQL).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BoostRules } from "../app/domain/boosts.ts";
import { HOUR_MS } from "../app/domain/clock.ts";
import { LEADERBOARD_MAX_LIMIT } from "../app/domain/leaderboard.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { unitsToPoints } from "../app/domain/rewards.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { creditHour, recalculateAccruals } from "../db/queries/accrual.server.ts";
import { FOLD_EVERY_CREDITS, switchBasisAhead } from "../db/queries/accrual-basis.server.ts";
import { createSchedule } from "../db/queries/boosts.server.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";
import { leaderboard, leaderboardRank } from "../db/queries/holdings.server.ts";
import { addPoints } from "../db/queries/points.server.ts";
import { at, openStake, resetIndexerState, testAddress } from "./test-support.ts";
import { accruePending } from "./accrual.server.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

let itemIds: number[];

const ctx = useIndexerTests({
  seed: async (sql) => {
    await importCatalogue(sql, demoCatalogue());
    // Every rarity among the first items used (the catalogue is in number order, rarities spread through it).
    itemIds = (await sql<{ id: number }[]>`select id from items order by rarity, id`).map((row) => row.id).filter((_, i) => i % 7 === 0);
  },
});

const HOURS = 12;
const WALLETS = 12;
const MINUTE = 60_000;
const percent = fc.integer({ min: 10, max: 30 }).map((tenths) => tenths * 10);
const rules: fc.Arbitrary<BoostRules> = fc.record({
  rarity: fc.record({ Common: percent, Rare: percent, Epic: percent, Legendary: percent }),
  // Stakes begin 2 to 60 hours before hour 0, so steps of one and two days are crossed during the run.
  tenure: fc.tuple(percent, percent).map(([a, b]) => [
    { days: 1, percent: a },
    { days: 2, percent: b },
  ]),
  cap: percent,
});
/** What to do at a step, resolved against the stakes as they then are (`pick` and `when` are fractions). */
const operation = fc.oneof(
  fc.record({ kind: fc.constant("open" as const), wallet: fc.nat(WALLETS - 1), when: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant("end" as const),
    pick: fc.double({ min: 0, max: 0.999, noNaN: true }),
    when: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
);
const plan = fc.record({
  first: rules,
  second: rules,
  changeAt: fc.integer({ min: 0, max: HOURS }),
  initial: fc.array(fc.tuple(fc.nat(WALLETS - 1), fc.integer({ min: 2, max: 60 })), { minLength: 8, maxLength: 30 }),
  steps: fc.array(fc.array(operation, { maxLength: 4 }), { minLength: HOURS, maxLength: HOURS }),
  skipped: fc.uniqueArray(fc.integer({ min: 0, max: HOURS - 2 }), { maxLength: 3 }),
  // Whether the basis is switched to a new schedule an hour ahead: as the indexer's accrual pass does, right after
  // crediting; later, after the next hour's writes (which the switched figures then see and the marks still name);
  // or not (the CLI's single hour).
  switchesAhead: fc.constantFrom("never" as const, "after crediting" as const, "after the next writes" as const),
});

/**
 * Wallets whose balance (wallet_balances) is not the sum of their ledger rows, whose row lags by over a day, or
 * whose lag is beyond the leaderboard's bound.
 */
async function balancesOffTheLedger() {
  return ctx.db.sql`
    select l.address, l.units as ledger, w.units as balance from
      (select address, sum(amount) as units from points_ledger group by address) l
      full join wallet_balances w using (address)
    where w.units is distinct from l.units
    union all
    select a.address, null, h.credits - a.since_credit from accrual_basis a, accrual_basis_hour h
    where h.credits - a.since_credit > ${FOLD_EVERY_CREDITS}
    union all
    -- Carried units stay within the leaderboard's bound, and are gone once every wallet has been folded since.
    select a.address, a.carried_units, h.max_carried_units from accrual_basis a, accrual_basis_hour h
    where a.carried_units > h.max_carried_units or (a.carried_units > 0 and h.credits >= h.carried_until)
    union all
    select a.address, a.hourly_units, h.max_hourly_units from accrual_basis a, accrual_basis_hour h
    where a.hourly_units > h.max_hourly_units and a.since_credit < h.credits`;
}

/** The leaderboard and the ranks of `addresses` are those of the wallets' ledger sums, however far their rows lag. */
async function expectLeaderboardOfTheLedger(addresses: string[]) {
  const sums = await ctx.db.sql<{ address: string; units: number }[]>`
    select address, sum(amount)::int8 as units from points_ledger group by address having sum(amount) > 0 order by units desc, address`;
  const board = (await leaderboard(ctx.db.sql, LEADERBOARD_MAX_LIMIT)).map(({ address, rewards }) => ({ address, rewards }));
  expect(board).toEqual(
    sums.slice(0, LEADERBOARD_MAX_LIMIT).map((row) => ({ address: row.address, rewards: unitsToPoints(Number(row.units)) })),
  );
  for (const address of addresses) {
    const place = sums.findIndex((row) => row.address === address);
    const units = place < 0 ? 0 : Number(sums[place].units);
    expect(await leaderboardRank(ctx.db.sql, address, units)).toBe(place < 0 || place >= LEADERBOARD_MAX_LIMIT ? 0 : place + 1);
  }
}

type Stake = { id: number; itemId: number; address: string; startedAt: Date; endedAt: Date | null };

describe("the accrual's basis", () => {
  const base = () => at(ctx.run * 1_000);
  const hourOf = (n: number) => new Date(base().getTime() + n * HOUR_MS);
  const wallet = (n: number) => testAddress(`basis-${ctx.run}-${n}`);

  /** Everything at 100% from hour 0: a new schedule, so the first hour credited aggregates every stake. */
  async function flatScheduleFromHourZero() {
    ctx.clock.set(hourOf(-1));
    const rules = { rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 }, tenure: [], cap: 300 };
    await createSchedule(ctx.db.sql, { ...rules, effectiveFrom: hourOf(0) }, { kind: "cli" }, hourOf(-1));
  }

  /** Everything at 200% from hour 3, saved at hour 2 (before hour 2 is credited). */
  async function doubledFromHourThree() {
    const doubled = { rarity: { Common: 200, Rare: 200, Epic: 200, Legendary: 200 }, tenure: [], cap: 300 };
    await createSchedule(ctx.db.sql, { ...doubled, effectiveFrom: hourOf(3) }, { kind: "cli" }, hourOf(2));
  }

  /** Five wallets staking since before hour 0, hours 0-2 credited at 100%, and 200% saved to start at hour 3. */
  async function fiveStakersCreditedUpToADoubling() {
    await flatScheduleFromHourZero();
    for (let w = 0; w < 5; w++) await openStake(ctx.db.sql, itemIds[w], wallet(w), hourOf(-3));
    await creditHoursFromZero(2);
    await doubledFromHourThree();
    ctx.clock.set(hourOf(3));
    await creditHour(ctx.db.sql, { hour: hourOf(2), at: hourOf(3), actor: "system", source: "cli" });
  }

  /** Credits hours 0 … count − 1, each just after it ends. */
  async function creditHoursFromZero(count: number) {
    for (let n = 0; n < count; n++) {
      ctx.clock.set(hourOf(n + 1));
      await creditHour(ctx.db.sql, { hour: hourOf(n), at: hourOf(n + 1), actor: "system", source: "cli" });
    }
  }

  it("property: every hour credited from the basis is what recalculation computes from the stakes", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ first, second, changeAt, initial, steps, skipped, switchesAhead }) => {
        ctx.run += 1;
        await resetIndexerState(ctx.db.sql);
        ctx.clock.set(hourOf(-1));
        await createSchedule(ctx.db.sql, { ...first, effectiveFrom: hourOf(0) }, { kind: "cli" }, hourOf(-1));

        const stakes: Stake[] = [];
        const freeItems = [...itemIds];
        const open = async (address: string, startedAt: Date) => {
          const itemId = freeItems.shift();
          if (itemId === undefined) return;
          stakes.push({ id: await openStake(ctx.db.sql, itemId, address, startedAt), itemId, address, startedAt, endedAt: null });
        };
        for (const [w, hoursBefore] of initial) await open(wallet(w), new Date(hourOf(-hoursBefore).getTime() + 7 * MINUTE));

        // Each hour is checked as it is credited: later writes may reach behind it (a reorg, a late end).
        const credit = async (n: number, now: Date) => {
          const credited = await creditHour(ctx.db.sql, { hour: hourOf(n), at: now, actor: "system", source: "cli" });
          expect(credited.alreadyCredited).toBe(false);
          const recalculated = await recalculateAccruals(ctx.db.sql, hourOf(n), hourOf(n));
          expect(recalculated.hours).toBe(1);
          expect(recalculated.mismatches).toEqual([]);
          expect(await balancesOffTheLedger()).toEqual([]);
          if (switchesAhead === "after crediting") await switchBasisAhead(ctx.db.sql);
        };
        for (let step = 0; step < HOURS; step++) {
          const now = new Date(hourOf(step + 1).getTime() + 10 * MINUTE);
          ctx.clock.set(now);
          const between = (fraction: number, from: number) =>
            new Date(from + Math.floor(((now.getTime() - from) * fraction) / MINUTE) * MINUTE);
          for (const op of steps[step]) {
            if (op.kind === "open") {
              await open(wallet(op.wallet), between(op.when, hourOf(step - 3).getTime()));
              continue;
            }
            const candidates = stakes.filter((s) => s.endedAt === null);
            const target = candidates[Math.floor(op.pick * candidates.length)];
            if (!target) continue;
            if (op.kind === "end") {
              target.endedAt = between(op.when, target.startedAt.getTime());
              await ctx.db.sql`update stakes set ended_at = ${target.endedAt}, end_reason = 'unstaked' where id = ${target.id}`;
            } else {
              await ctx.db.owner.sql`delete from stakes where id = ${target.id}`;
              stakes.splice(stakes.indexOf(target), 1);
            }
            freeItems.push(target.itemId);
          }
          if (switchesAhead === "after the next writes") await switchBasisAhead(ctx.db.sql);
          if (step === changeAt) {
            await createSchedule(ctx.db.sql, { ...second, effectiveFrom: hourOf(step + 2) }, { kind: "cli" }, now);
          }
          if (!skipped.includes(step)) await credit(step, now);
        }
        for (const hour of skipped) await credit(hour, hourOf(HOURS + 1));
        await expectLeaderboardOfTheLedger(Array.from({ length: WALLETS }, (_, w) => wallet(w)));
      }),
      { numRuns: 10 },
    );
  }, 240_000);

  it("hours credited in order after the first aggregate only recompute the wallets that can differ", async () => {
    await flatScheduleFromHourZero();
    for (let w = 0; w < 5; w++) await openStake(ctx.db.sql, itemIds[w], wallet(w), hourOf(-3));
    await creditHoursFromZero(1);
    // A figure changed behind the accrual's back and marked nowhere (its hour 0 folded first, so its balance
    // stays its ledger's): kept, which shows the hour was carried over.
    await ctx.db.owner.sql`update balances set units = units + 10000 where address = ${wallet(0)}`;
    await ctx.db.owner.sql`
      update accrual_basis set boost_percent_sum = 200, hourly_units = 20000, since_credit = (select credits from accrual_basis_hour)
      where address = ${wallet(0)}`;
    await ctx.db.owner.sql`delete from accrual_basis_stale`;
    await openStake(ctx.db.sql, itemIds[9], wallet(1), new Date(hourOf(0).getTime() + 30 * MINUTE));
    ctx.clock.set(hourOf(2));
    await creditHour(ctx.db.sql, { hour: hourOf(1), at: hourOf(2), actor: "system", source: "cli" });
    const amounts = await ctx.db.sql<{ address: string; amount: number }[]>`
      select address, amount from points_ledger where accrual_hour = ${hourOf(1)} and address = any(${[wallet(0), wallet(1), wallet(2)]})`;
    expect(Object.fromEntries(amounts.map((row) => [row.address, Number(row.amount)]))).toEqual({
      [wallet(0)]: 20_000, // carried over (the tampered figure)
      [wallet(1)]: 20_000, // recomputed: its new stake began during hour 0, so counts from hour 1
      [wallet(2)]: 10_000,
    });
  });

  it("the pass before a new schedule's first hour switches the basis to it, every balance and balance row as it was", async () => {
    await fiveStakersCreditedUpToADoubling();
    const balanceRows = () => ctx.db.sql<{ address: string; units: number; updatedAt: Date }[]>`
      select address, units, updated_at from balances order by address`;
    const balances = () => ctx.db.sql<{ address: string; units: number }[]>`select address, units from wallet_balances order by address`;
    const [rowsBefore, balancesBefore] = [await balanceRows(), await balances()];
    // A pass after hour 2 (credited already) switches the basis to hour 3's schedule; a second finds nothing to do.
    const pass = await accruePending({ sql: ctx.db.sql, at: hourOf(3), maxHours: 1, source: "cli" });
    expect(pass.skipped === false && pass.hours).toEqual([]);
    const [basis] = await ctx.db.sql<{ boostVersion: number; hour: Date }[]>`select boost_version, hour from accrual_basis_hour`;
    const [newest] = await ctx.db.sql<{ version: number }[]>`select max(version) as version from boost_schedules`;
    expect(basis).toEqual({ boostVersion: newest.version, hour: hourOf(2) });
    expect(await switchBasisAhead(ctx.db.sql)).toBe(false);
    // Hour 2's accrual not yet folded is carried: no balance and no balance row moved.
    expect(await balanceRows()).toEqual(rowsBefore);
    expect(await balances()).toEqual(balancesBefore);
    const [{ carried }] = await ctx.db.sql<
      { carried: number }[]
    >`select count(*)::int as carried from accrual_basis where carried_units > 0`;
    expect(carried).toBeGreaterThan(0);
    expect(await balancesOffTheLedger()).toEqual([]);
  });

  it("a new schedule's first hour starts from the switched basis, recomputing only the wallets that can differ", async () => {
    await fiveStakersCreditedUpToADoubling();
    expect(await switchBasisAhead(ctx.db.sql)).toBe(true);
    // A switched figure changed behind the accrual's back and marked nowhere: kept, which shows hour 3 starts
    // from the switched basis instead of aggregating every stake again.
    await ctx.db.owner.sql`update accrual_basis set boost_percent_sum = 300, hourly_units = 30000 where address = ${wallet(0)}`;
    await openStake(ctx.db.sql, itemIds[9], wallet(1), new Date(hourOf(2).getTime() + 30 * MINUTE));
    const rowsBefore = await ctx.db.sql<
      { address: string; units: number; updatedAt: Date }[]
    >`select address, units, updated_at from balances`;
    const [{ phase }] = await ctx.db.sql<{ phase: number }[]>`select credits % ${FOLD_EVERY_CREDITS} as phase from accrual_basis_hour`;

    ctx.clock.set(hourOf(4));
    await creditHour(ctx.db.sql, { hour: hourOf(3), at: hourOf(4), actor: "system", source: "cli" });
    const amounts = await ctx.db.sql<{ address: string; amount: number }[]>`
      select address, amount from points_ledger where accrual_hour = ${hourOf(3)} and address = any(${[wallet(0), wallet(1), wallet(2)]})`;
    expect(Object.fromEntries(amounts.map((row) => [row.address, Number(row.amount)]))).toEqual({
      [wallet(0)]: 30_000, // the switched figure (tampered)
      [wallet(1)]: 40_000, // recomputed: its new stake began during hour 2, so counts from hour 3, both at 200%
      [wallet(2)]: 20_000, // the new schedule's rate
    });
    // No balance row was written but those the hour folds anyway: a recomputed wallet's, and those whose turn it is.
    const folded = await ctx.db.sql<{ address: string }[]>`
      select address from accrual_basis where fold_phase = ${Number(phase)} union select ${wallet(1)}`;
    const rowsAfter = await ctx.db.sql<
      { address: string; units: number; updatedAt: Date }[]
    >`select address, units, updated_at from balances`;
    const unfoldedOf = (rows: typeof rowsAfter) => rows.filter((row) => !folded.some((f) => f.address === row.address));
    expect(unfoldedOf(rowsAfter)).toEqual(unfoldedOf(rowsBefore));
    expect(unfoldedOf(rowsAfter).length).toBeGreaterThan(0);
    expect(await balancesOffTheLedger()).toEqual([]);
    await expectLeaderboardOfTheLedger([0, 1, 2, 3, 4].map(wallet));
  });

  it("a switch that fails leaves the pass its credits and its report, and the new schedule's first hour right", async () => {
    await flatScheduleFromHourZero();
    for (let w = 0; w < 3; w++) await openStake(ctx.db.sql, itemIds[w], wallet(w), hourOf(-3));
    await creditHoursFromZero(2);
    await doubledFromHourThree();
    const lines: { level: string; msg: string; switchedBasis?: boolean }[] = [];
    const logger = createLogger("indexer", { logLevel: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    ctx.clock.set(hourOf(3));
    // The switch fails on its first row (a figure that changes); hour 2's credit changes none, so it goes through.
    await ctx.db.owner.sql`
      create function refuse_switch() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`;
    await ctx.db.owner.sql`
      create trigger refuse_switch before update on accrual_basis for each row
      when (old.boost_percent_sum is distinct from new.boost_percent_sum) execute function refuse_switch()`;
    try {
      const pass = await accruePending({ sql: ctx.db.sql, at: hourOf(3), maxHours: 1, source: "cli", logger });
      expect(pass.skipped === false && pass.hours.map((credit) => credit.hour)).toEqual([hourOf(2)]);
    } finally {
      await ctx.db.owner.sql`drop trigger refuse_switch on accrual_basis`;
      await ctx.db.owner.sql`drop function refuse_switch()`;
    }
    expect(lines.filter((line) => line.level === "warn").map((line) => line.msg)).toContain(
      "the basis could not be switched to the next hour's schedule: its first hour will aggregate every stake",
    );
    expect(lines.find((line) => line.msg === "accrual")?.switchedBasis).toBe(false);
    const [basis] = await ctx.db.sql<{ boostVersion: number }[]>`select boost_version from accrual_basis_hour`;
    const [newest] = await ctx.db.sql<{ version: number }[]>`select max(version) as version from boost_schedules`;
    expect(basis.boostVersion).not.toBe(newest.version);
    ctx.clock.set(hourOf(4));
    await creditHour(ctx.db.sql, { hour: hourOf(3), at: hourOf(4), actor: "system", source: "cli" });
    expect((await recalculateAccruals(ctx.db.sql, hourOf(3), hourOf(3))).mismatches).toEqual([]);
    expect(await balancesOffTheLedger()).toEqual([]);
  });

  it("a wallet whose accrual is not yet folded into its row ranks by its whole balance", async () => {
    await flatScheduleFromHourZero();
    const [earner, holder] = [wallet(0), wallet(1)];
    for (const id of itemIds.slice(0, 10)) await openStake(ctx.db.sql, id, earner, hourOf(-1));
    await addPoints(ctx.db.sql, { address: holder, points: 130, actor: { kind: "cli" } });
    await creditHoursFromZero(3);
    // 3 hours × 10 items × 15,000 units = 450,000 > 312,000 (130 points); the row holds at most 2 of the hours.
    const rows = await ctx.db.sql<{ address: string; row: number; balance: number }[]>`
      select address, b.units as row, w.units as balance from balances b join wallet_balances w using (address)
      where address = any(${[earner, holder]})`;
    const of = (address: string) => rows.find((row) => row.address === address)!;
    expect(of(earner).balance).toBe(450_000);
    expect(Number(of(earner).row)).toBeLessThan(Number(of(holder).row));
    const board = (await leaderboard(ctx.db.sql, LEADERBOARD_MAX_LIMIT)).map((entry) => entry.address);
    expect(board.indexOf(earner)).toBeLessThan(board.indexOf(holder));
    // A board that ends at the holder still has the earner, whose row alone would not be on it.
    expect((await leaderboard(ctx.db.sql, board.indexOf(holder) + 1)).map((entry) => entry.address)).toContain(earner);
    expect(await leaderboardRank(ctx.db.sql, earner, 450_000)).toBeLessThan(await leaderboardRank(ctx.db.sql, holder, 312_000));
    await expectLeaderboardOfTheLedger([earner, holder]);
  });

  it("a wallet whose carried units exceed what the new rates can add still ranks by its whole balance", async () => {
    // The earner's turn to fold is the first of the 13 hours credited here (when it has nothing yet), and the next
    // 23 after it, so its row stays 0 for the 12 hours at 300%.
    const [basis] = await ctx.db.sql<{ credits: number }[]>`select credits from accrual_basis_hour`;
    const firstPhase = Number(basis?.credits ?? 0) % FOLD_EVERY_CREDITS;
    let earner = wallet(0);
    for (let n = 0; ; n++) {
      earner = testAddress(`basis-${ctx.run}-late-fold-${n}`);
      const [{ phase }] = await ctx.db.sql<{ phase: number }[]>`select (hashtext(${earner}) & 2147483647) % 24 as phase`;
      if (Number(phase) === firstPhase) break;
    }
    const holder = wallet(1);
    ctx.clock.set(hourOf(-1));
    const everything = (percent: number) => ({ Common: percent, Rare: percent, Epic: percent, Legendary: percent });
    await createSchedule(
      ctx.db.sql,
      { rarity: everything(300), tenure: [], cap: 300, effectiveFrom: hourOf(0) },
      { kind: "cli" },
      hourOf(-1),
    );
    await createSchedule(
      ctx.db.sql,
      { rarity: everything(100), tenure: [], cap: 300, effectiveFrom: hourOf(12) },
      { kind: "cli" },
      hourOf(-1),
    );
    await openStake(ctx.db.sql, itemIds[0], earner, hourOf(-1));
    await addPoints(ctx.db.sql, { address: holder, points: 125, actor: { kind: "cli" } }); // 300,000 units
    for (let n = 0; n <= 12; n++) {
      ctx.clock.set(hourOf(n + 1));
      await creditHour(ctx.db.sql, { hour: hourOf(n), at: hourOf(n + 1), actor: "system", source: "cli" });
      await switchBasisAhead(ctx.db.sql);
    }
    // 12 hours at 30,000 carried, then 10,000: 370,000 over a row of 0, more than 24 of the new hourly credits.
    const [earned] = await ctx.db.sql<{ row: number; carried: number; balance: number }[]>`
      select b.units as row, a.carried_units as carried, w.units as balance
      from balances b join accrual_basis a using (address) join wallet_balances w using (address) where address = ${earner}`;
    expect([earned.row, earned.carried, earned.balance].map(Number)).toEqual([0, 360_000, 370_000]);
    // The holder's row is above the earner's by more than 24 of the new hourly credits: only the carried units
    // in the bound bring the earner's row into the holder's count.
    const board = (await leaderboard(ctx.db.sql, LEADERBOARD_MAX_LIMIT)).map((entry) => entry.address);
    expect(board.indexOf(earner)).toBeLessThan(board.indexOf(holder));
    expect(await leaderboardRank(ctx.db.sql, holder, 300_000)).toBe(board.indexOf(holder) + 1);
    await expectLeaderboardOfTheLedger([earner, holder]);
  });

  it("a wallet spends what the basis credited it before its row is folded, and not a unit more", async () => {
    await flatScheduleFromHourZero();
    const spender = wallet(0);
    await openStake(ctx.db.sql, itemIds[0], spender, hourOf(-1));
    await creditHoursFromZero(2);
    const spend = (units: number) => ctx.db.sql`
      insert into points_ledger (address, kind, amount, giveaway_id, tickets, actor, created_at)
      values (${spender}, 'giveaway_entry', ${-units}, 1, 1, 'test', ${hourOf(2)})`;
    const [before] = await ctx.db.sql<{ row: number; balance: number }[]>`
      select b.units as row, w.units as balance from balances b join wallet_balances w using (address) where address = ${spender}`;
    expect(Number(before.balance)).toBe(20_000);
    await expect(spend(Number(before.balance) + 1)).rejects.toMatchObject({ code: "23514" });
    await spend(Number(before.balance));
    const [after] = await ctx.db.sql<{ balance: number }[]>`select units as balance from wallet_balances where address = ${spender}`;
    expect(Number(after.balance)).toBe(0);
    expect(await balancesOffTheLedger()).toEqual([]);
  });
});
