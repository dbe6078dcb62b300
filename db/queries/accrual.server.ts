/**
 * Hourly accrual (DECISIONS "Points"): hour H = [H, H+1h) UTC. Every wallet is credited N × R / 24 points
 * (in units), N = its stakes open for the whole hour, R = the per-item daily rate of N's tier, each item's
 * share boosted by its rarity and tenure (issue 26). The wallets' figures are carried from the hour before
 * (`accrual_basis`, recomputed only where they can differ), so an hour costs one INSERT … SELECT of its
 * ledger rows; the hour lock and `accrual_runs` make it idempotent, the unique (address, accrual_hour)
 * ledger key guards it. Each row records what explains it, checked against its amount by the database.
 */
import { combinedPercent, itemHourUnits, tenurePercentAt } from "../../app/domain/boosts.ts";
import { HOUR_MS } from "../../app/domain/clock.ts";
import type { Rarity } from "../../app/domain/collections.ts";
import { perItemDailyRate, unitsToPoints } from "../../app/domain/rewards.ts";
import type { Queryable, Sql } from "../client.server.ts";
import { recordAudit, SYSTEM_ACTOR, type Actor } from "./audit.server.ts";
import { bringBasisTo, countCredit, lockBasis, withoutJit } from "./accrual-basis.server.ts";
import { perItemHourlyUnitsCase, tierCase } from "./boost-sql.server.ts";
import { BOOST_LOCK_CLASS, scheduleInForce } from "./boosts.server.ts";
import type { SyncSource } from "./ownership.server.ts";

export type AccrualSource = SyncSource;
export type HourCredit = { hour: Date; wallets: number; units: number };
export type AccrualRun = HourCredit & { source: AccrualSource; finishedAt: Date };

/** Serialises two credits of the same hour (second waits, then finds it done) instead of deadlocking. */
const HOUR_LOCK_CLASS = 727_103;

const UNITS_PER_ITEM_HOUR = perItemHourlyUnitsCase("n");
const TIER = tierCase("n");

/**
 * Credits hour `hour` to every wallet with stakes open for all of it, and records the run. A second run
 * (or one racing this one) waits for the hour lock, then finds the run and inserts nothing.
 */
export async function creditHour(
  sql: Sql,
  options: { hour: Date; at: Date; actor: string; source: AccrualSource },
): Promise<HourCredit & { alreadyCredited: boolean }> {
  const { hour, at, actor, source } = options;
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${HOUR_LOCK_CLASS}, ${Math.floor(hour.getTime() / HOUR_MS) % 2 ** 31})`;
    const [previous] = await tx<{ wallets: number; units: number }[]>`select wallets, units from accrual_runs where hour = ${hour}`;
    // A credited hour stays as it was: stakes open for all of it started before it ended, so a second run
    // would find the same wallets already credited. Answer at once instead of aggregating every stake again.
    if (previous) return { hour, wallets: 0, units: 0, alreadyCredited: true };
    await tx`select pg_advisory_xact_lock_shared(${BOOST_LOCK_CLASS}, 0)`;
    await lockBasis(tx);
    await withoutJit(tx);
    const schedule = await scheduleInForce(tx, hour);
    await bringBasisTo(tx, hour, schedule, at);
    // The hour lock and the run checked above mean no row of this hour exists: a conflict is an error, not a
    // skip. The rows are `in_basis`: their balances come through the basis (wallet_balances), not the trigger.
    const [credited] = await tx<{ wallets: number; units: number; maxUnits: number }[]>`
      with inserted as (
        insert into points_ledger
          (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
           boost_version, rarity_percent_sum, boost_percent_sum, actor, created_at, in_basis)
        select address, 'accrual', hourly_units, ${hour}, staked_spooks, staked_spook_society,
               ${tx.unsafe(TIER)}, ${tx.unsafe(UNITS_PER_ITEM_HOUR)},
               ${schedule.version}::int, rarity_percent_sum, boost_percent_sum, ${actor}, ${at}, true
        from (select *, staked_spooks + staked_spook_society as n from accrual_basis) as basis
        returning amount
      )
      select count(*)::int as wallets, coalesce(sum(amount), 0)::bigint as units, coalesce(max(amount), 0)::bigint as max_units
      from inserted`;
    await countCredit(tx, credited.maxUnits);
    const recorded = await tx`
      insert into accrual_runs (hour, wallets, units, source, finished_at)
      values (${hour}, ${credited.wallets}, ${credited.units}, ${source}, ${at})
      on conflict (hour) do update
        set wallets = accrual_runs.wallets + excluded.wallets, units = accrual_runs.units + excluded.units
        where excluded.wallets > 0
      returning (xmax = 0) as inserted`;
    const alreadyCredited = recorded.length === 0 || !recorded[0].inserted;
    if (recorded.length > 0) await auditHourCredited(tx, { hour, at, source, previous, credited });
    return { hour, wallets: credited.wallets, units: credited.units, alreadyCredited };
  });
}

type RunTotals = { wallets: number; units: number };

/** The hour's audit row: what its run had credited before this one, and after. */
async function auditHourCredited(
  tx: Queryable,
  run: { hour: Date; at: Date; source: AccrualSource; previous: RunTotals | undefined; credited: RunTotals },
): Promise<void> {
  const { hour, source, previous, credited } = run;
  const totals = ({ wallets, units }: RunTotals) => ({ wallets, points: unitsToPoints(units) });
  const before = previous ? { credited: true, ...totals(previous) } : { credited: false };
  const after = {
    credited: true,
    ...totals({ wallets: (previous?.wallets ?? 0) + credited.wallets, units: (previous?.units ?? 0) + credited.units }),
  };
  const actor: Actor = source === "cli" ? { kind: "cli" } : SYSTEM_ACTOR;
  await recordAudit(tx, actor, "accrual.hour", hour.toISOString(), { source, ...totals(credited) }, { before, after });
}

/** `from … where …` of the hour starts in [from, to] with no accrual run yet, as `h`. */
const uncredited = (sql: Queryable, from: Date, to: Date) => sql`
  from generate_series(${from}::timestamptz, ${to}::timestamptz, interval '1 hour') as h
  where not exists (select 1 from accrual_runs r where r.hour = h)`;

/** Ended hours in [from, to] (hour starts) with no accrual run yet, oldest first. */
export async function uncreditedHours(sql: Queryable, from: Date, to: Date): Promise<Date[]> {
  if (from > to) return [];
  const rows = await sql<{ hour: Date }[]>`select h as hour ${uncredited(sql, from, to)} order by h`;
  return rows.map((row) => row.hour);
}

export async function countUncreditedHours(sql: Queryable, from: Date, to: Date): Promise<number> {
  if (from > to) return 0;
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count ${uncredited(sql, from, to)}`;
  return row.count;
}

export async function earliestStakeStart(sql: Queryable): Promise<Date | null> {
  const [row] = await sql<{ earliest: Date | null }[]>`select min(started_at) as earliest from stakes`;
  return row.earliest;
}

export async function lastCreditedHour(sql: Queryable): Promise<Date | null> {
  const [row] = await sql<{ hour: Date | null }[]>`select max(hour) as hour from accrual_runs`;
  return row.hour;
}

export async function lastAccrualRun(sql: Queryable): Promise<AccrualRun | null> {
  const [row] = await sql<AccrualRun[]>`
    select hour, wallets, units, source, finished_at from accrual_runs order by finished_at desc, hour desc limit 1`;
  return row ?? null;
}

export type AccrualMismatch = {
  hour: Date;
  address: string;
  /** What the ledger holds (null: no row) and what the stakes and the schedule then give (null: nothing). */
  ledger: { units: number; boostVersion: number | null; boostPercentSum: number | null } | null;
  expected: { units: number; boostVersion: number | null; boostPercentSum: number } | null;
};

/**
 * Recomputes every credited hour in [from, to] (hour starts) from the stakes and the schedule in force then,
 * item by item in TypeScript with app/domain/boosts.ts (not the accrual's SQL), and answers where the ledger
 * differs: the check that every credited hour is reproduced from the ledger and the schedule.
 */
export async function recalculateAccruals(
  sql: Queryable,
  from: Date,
  to: Date,
): Promise<{ hours: number; rows: number; mismatches: AccrualMismatch[] }> {
  const hours = await sql<{ hour: Date }[]>`select hour from accrual_runs where hour between ${from} and ${to} order by hour`;
  const mismatches: AccrualMismatch[] = [];
  let rows = 0;
  for (const { hour } of hours) {
    const end = new Date(hour.getTime() + HOUR_MS);
    const schedule = await scheduleInForce(sql, hour);
    const stakes = await sql<{ address: string; rarity: Rarity; tenureFrom: Date }[]>`
      select address, rarity, tenure_from from stakes where started_at <= ${hour} and (ended_at is null or ended_at >= ${end})`;
    const byWallet = new Map<string, { rarity: Rarity; tenureFrom: Date }[]>();
    for (const stake of stakes) byWallet.set(stake.address, [...(byWallet.get(stake.address) ?? []), stake]);
    const expected = new Map<string, { units: number; boostVersion: number | null; boostPercentSum: number }>();
    for (const [address, items] of byWallet) {
      const rate = perItemDailyRate(items.length);
      let units = 0;
      let percentSum = 0;
      for (const item of items) {
        const combined = combinedPercent(schedule, item.rarity, tenurePercentAt(schedule, item.tenureFrom, hour));
        units += itemHourUnits(rate, combined);
        percentSum += combined;
      }
      expected.set(address, { units, boostVersion: schedule.version, boostPercentSum: percentSum });
    }
    const ledger = await sql<{ address: string; amount: number; boostVersion: number | null; boostPercentSum: number | null }[]>`
      select address, amount, boost_version, boost_percent_sum from points_ledger where kind = 'accrual' and accrual_hour = ${hour}`;
    rows += ledger.length;
    const seen = new Set<string>();
    for (const row of ledger) {
      seen.add(row.address);
      const want = expected.get(row.address) ?? null;
      const units = Number(row.amount);
      const sum = row.boostPercentSum === null ? null : Number(row.boostPercentSum);
      // Rows written before boosts (no version, no sums) are checked by their amount alone.
      const same =
        want !== null && units === want.units && (sum === null || (sum === want.boostPercentSum && row.boostVersion === want.boostVersion));
      if (!same) {
        mismatches.push({
          hour,
          address: row.address,
          ledger: { units, boostVersion: row.boostVersion, boostPercentSum: sum },
          expected: want,
        });
      }
    }
    for (const [address, want] of expected) {
      if (!seen.has(address)) mismatches.push({ hour, address, ledger: null, expected: want });
    }
  }
  return { hours: hours.length, rows, mismatches };
}
