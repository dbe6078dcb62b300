/**
 * The accrual's basis (migration 0024, docs/decisions.md "Accrual at its floor"): each wallet's figures for
 * the last hour credited, carried to the next, and the balances that accrue from it. An hour credited
 * through the basis costs one INSERT … SELECT of its ledger rows; the stakes are read only for the wallets
 * that can differ, and balance rows are written only for the wallets whose figures changed or whose turn it
 * is to fold (one in 24 each hour). `wallet_balances` is what a balance is; `balances.units` lags it by at
 * most 24 of the wallet's hourly credits, plus what the switch to a new schedule carried (migration 0070).
 * The accrual pass switches the basis to a new schedule an hour ahead (`switchBasisAhead`), so its first hour
 * recomputes only the wallets that can differ, as any other hour does.
 */
import type { Fragment } from "postgres";
import { DAY_MS, type BoostSchedule } from "../../app/domain/boosts.ts";
import { HOUR_MS } from "../../app/domain/clock.ts";
import type { Queryable, Sql } from "../client.server.ts";
import { combinedPercentCase, perItemHourlyUnitsCase, rarityPercentCase } from "./boost-sql.server.ts";
import { scheduleInForce } from "./boosts.server.ts";

/** Held (exclusively) by whatever writes the basis or folds it: one accrual at a time, a recalculation. */
export const BASIS_LOCK_CLASS = 727_106;

/** Each wallet's unfolded accrual is folded into its balance row at least once every this many hours credited. */
export const FOLD_EVERY_CREDITS = 24;

export async function lockBasis(tx: Queryable): Promise<void> {
  await tx`select pg_advisory_xact_lock(${BASIS_LOCK_CLASS}, 0)`;
}

/**
 * PostgreSQL's JIT off for the rest of the transaction: the basis's statements over every wallet cost enough to be
 * compiled, and compiling them (the rarity and tenure cases of every schedule) took longer than it saved, and
 * longest in a new connection, which loads the compiler first (docs/decisions.md "A new schedule's basis,
 * switched an hour ahead"). An engine without JIT (PGlite) takes the setting and does nothing.
 */
export async function withoutJit(tx: Queryable): Promise<void> {
  await tx`set local jit = off`;
}

/**
 * Brings `accrual_basis` to `hour` (each wallet's figures for the stakes open for all of it under
 * `schedule`) and folds the wallets whose turn it is. From the basis of an earlier hour under the same schedule
 * (a new one's switched to an hour ahead by `switchBasisAhead`), only the wallets that can differ are recomputed;
 * otherwise every stake is aggregated again. Call under `lockBasis`.
 */
export async function bringBasisTo(tx: Queryable, hour: Date, schedule: BoostSchedule, at: Date): Promise<void> {
  const basis = await basisHour(tx);
  const credits = Number(basis?.credits ?? 0);
  const sameSchedule = basis !== undefined && basis.boostVersion === schedule.version;
  // The same hour again (a restored database, a ledger credited by hand) still takes the stakes written since.
  if (sameSchedule && basis.hour <= hour) await advanceBasis(tx, { from: basis.hour, to: hour, schedule, credits, at });
  else await rebuildBasis(tx, { hour, schedule, credits, at });
  await foldDue(tx, credits, at, tx`fold_phase = ${credits % FOLD_EVERY_CREDITS}`);
  await tx`
    insert into accrual_basis_hour (hour, boost_version, credits) values (${hour}, ${schedule.version}::int, ${credits})
    on conflict (only_row) do update set hour = excluded.hour, boost_version = excluded.boost_version`;
}

type BasisHour = { hour: Date; boostVersion: number | null; credits: number };

async function basisHour(tx: Queryable): Promise<BasisHour | undefined> {
  const [basis] = await tx<BasisHour[]>`select hour, boost_version, credits from accrual_basis_hour`;
  return basis && { ...basis, credits: Number(basis.credits) };
}

/**
 * Switches the basis to the next hour's schedule an hour ahead, when it differs from the basis's (a new schedule,
 * saved to start then): each wallet's figures under it, for the basis's hour, aggregated from every stake and
 * written over the wallet's basis row in place. A wallet's accrual not yet in its balance row (at the old figures)
 * moves into its carried units, and no hour has been credited at the new figures yet, so every balance stays what it
 * was; no balance row is written, and no holder's request waits on it. The next hour then starts from the basis
 * under its own schedule, recomputing only the wallets that can differ, as every hour does. A wallet whose presence
 * in the figures differs from the basis's had its stakes written since the hour was credited: it is marked stale,
 * so that hour recomputes it (its row, left as it was, keeps its old figures until then). Answers whether it
 * switched. Call after crediting.
 */
export async function switchBasisAhead(sql: Sql): Promise<boolean> {
  return sql.begin(async (tx) => {
    await lockBasis(tx);
    await withoutJit(tx);
    const basis = await basisHour(tx);
    if (!basis) return false; // nothing credited yet: the first hour aggregates every stake, once
    const schedule = await scheduleInForce(tx, new Date(basis.hour.getTime() + HOUR_MS));
    if (schedule.version === basis.boostVersion) return false;
    await tx`
      with figures as (${basisFigures(tx, basis.hour, schedule, basis.credits, tx``)})
      update accrual_basis a set
        staked_spooks = f.staked_spooks, staked_spook_society = f.staked_spook_society,
        rarity_percent_sum = f.rarity_percent_sum, boost_percent_sum = f.boost_percent_sum, hourly_units = f.hourly_units,
        since_credit = ${basis.credits}, carried_units = ${unfolded(tx, basis.credits, "a")}
      from figures f
      where f.address = a.address`;
    // Every wallet carries at most this (units carried before included), and is folded within the next
    // FOLD_EVERY_CREDITS credits, which moves them on.
    await tx`
      update accrual_basis_hour set
        boost_version = ${schedule.version}::int,
        max_carried_units = (select coalesce(max(carried_units), 0) from accrual_basis),
        carried_until = ${basis.credits + FOLD_EVERY_CREDITS}`;
    return true;
  });
}

/**
 * The hour's rows have been written: every wallet in the basis is one credit further. `maxHourlyUnits`: the
 * highest of them, which is the basis's highest hourly credit (the leaderboard's bound).
 */
export async function countCredit(tx: Queryable, maxHourlyUnits: number): Promise<void> {
  await tx`update accrual_basis_hour set credits = credits + 1, max_hourly_units = ${maxHourlyUnits}`;
}

/** Folds every wallet's unfolded accrual into its balance row (a balance is unchanged). Call under `lockBasis`. */
export async function foldAllBalances(tx: Queryable, at: Date): Promise<void> {
  const [basis] = await tx<{ credits: number }[]>`select credits from accrual_basis_hour`;
  if (basis) await foldDue(tx, Number(basis.credits), at, tx`true`);
}

type Move = { schedule: BoostSchedule; credits: number; at: Date };

/** `select address, staked_spooks, … from stakes` open for all of `hour`, by wallet, restricted by `where`. */
function basisFigures(tx: Queryable, hour: Date, schedule: BoostSchedule, credits: number, where: Fragment) {
  const hourEnd = new Date(hour.getTime() + HOUR_MS);
  const rarity = rarityPercentCase(schedule, "s.rarity");
  const combined = combinedPercentCase(schedule, hour, "s.rarity", "s.tenure_from");
  return tx`
    select s.address,
           count(*) filter (where s.collection = 'spooks') as staked_spooks,
           count(*) filter (where s.collection = 'spook-society') as staked_spook_society,
           sum(${tx.unsafe(rarity)}) as rarity_percent_sum,
           sum(${tx.unsafe(combined)}) as boost_percent_sum,
           (${tx.unsafe(perItemHourlyUnitsCase("count(*)"))}) * sum(${tx.unsafe(combined)}) / 100 as hourly_units,
           ${credits}::int8 as since_credit
    from stakes s
    where s.started_at <= ${hour} and (s.ended_at is null or s.ended_at >= ${hourEnd}) ${where}
    group by s.address`;
}

/** A wallet's figures; with `since_credit`, a basis row as `basisFigures` selects it. */
const FIGURE_COLUMNS = "address, staked_spooks, staked_spook_society, rarity_percent_sum, boost_percent_sum, hourly_units";
const BASIS_COLUMNS = `${FIGURE_COLUMNS}, since_credit`;

async function rebuildBasis(tx: Queryable, { hour, schedule, credits, at }: Move & { hour: Date }): Promise<void> {
  await foldDue(tx, credits, at, tx`true`);
  // Marks first: a stake written after this statement keeps its mark and is recomputed next hour.
  await tx`delete from accrual_basis_stale`;
  await tx`delete from accrual_basis`;
  await tx`
    with figures as (${basisFigures(tx, hour, schedule, credits, tx``)}),
    opened as (
      insert into balances (address, units, updated_at) select address, 0, ${at} from figures on conflict (address) do nothing
    )
    insert into accrual_basis (${tx.unsafe(BASIS_COLUMNS)}) select * from figures`;
}

/**
 * The wallets whose figures can differ between hour `from` and hour `to` (same schedule): their stakes were
 * written since (marked stale: the marks are consumed), began in (from, to], ended in [from + 1h, to + 1h), or
 * crossed a tenure step (tenure_from in (from − days, to − days]). A `with` list's first items, as `affected`.
 */
function affectedWallets(tx: Queryable, from: Date, to: Date, schedule: BoostSchedule): Fragment {
  const after = (date: Date) => new Date(date.getTime() + HOUR_MS);
  const crossedSteps = schedule.tenure.map(
    ({ days }) => tx`
      union select address from stakes
      where tenure_from > ${new Date(from.getTime() - days * DAY_MS)} and tenure_from <= ${new Date(to.getTime() - days * DAY_MS)}`,
  );
  return tx`
    stale as (
      delete from accrual_basis_stale returning address
    ), affected as (
      select address from stale
      union select address from stakes where started_at > ${from} and started_at <= ${to}
      union select address from stakes where ended_at >= ${after(from)} and ended_at < ${after(to)}
      ${crossedSteps.reduce((all, step) => tx`${all} ${step}`, tx``)}
    )`;
}

/**
 * From the basis of hour `from` to hour `to` (same schedule): the wallets that can differ (`affectedWallets`)
 * have their accrual so far folded into their rows and their figures recomputed. One statement, so the marks
 * it consumes and the stakes it reads are of one moment.
 */
async function advanceBasis(tx: Queryable, { from, to, schedule, credits, at }: Move & { from: Date; to: Date }): Promise<void> {
  await tx`
    with ${affectedWallets(tx, from, to, schedule)}, figures as (
      ${basisFigures(tx, to, schedule, credits, tx`and s.address in (select address from affected)`)}
    ), folded as (
      update balances b set units = b.units + ${unfolded(tx, credits, "a")}, updated_at = ${at}
      from accrual_basis a
      where a.address = b.address and a.address in (select address from affected) and ${hasUnfolded(tx, credits, "a")}
    ), opened as (
      insert into balances (address, units, updated_at)
        select address, 0, ${at} from figures where address not in (select address from accrual_basis)
      on conflict (address) do nothing
    ), emptied as (
      delete from accrual_basis
      where address in (select address from affected) and address not in (select address from figures)
    )
    insert into accrual_basis (${tx.unsafe(BASIS_COLUMNS)}) select * from figures
    on conflict (address) do update set
      staked_spooks = excluded.staked_spooks, staked_spook_society = excluded.staked_spook_society,
      rarity_percent_sum = excluded.rarity_percent_sum, boost_percent_sum = excluded.boost_percent_sum,
      hourly_units = excluded.hourly_units, since_credit = excluded.since_credit, carried_units = 0`;
}

/** A basis row's accrual not yet in its balance row, at `credits` (`alias`: the row's name in the statement). */
const unfolded = (tx: Queryable, credits: number, alias: string) =>
  tx.unsafe(`(${alias}.carried_units + ${alias}.hourly_units * (${Number(credits)} - ${alias}.since_credit))`);
const hasUnfolded = (tx: Queryable, credits: number, alias: string) =>
  tx.unsafe(`(${alias}.since_credit < ${Number(credits)} or ${alias}.carried_units > 0)`);

/**
 * Folds the unfolded accrual of the basis's wallets matching `which` into their balance rows, at `credits`
 * (every basis wallet has its row: the table's foreign key).
 */
async function foldDue(tx: Queryable, credits: number, at: Date, which: Fragment): Promise<void> {
  await tx`
    with due as materialized (
      select address, ${unfolded(tx, credits, "a")} as units from accrual_basis a
      where ${hasUnfolded(tx, credits, "a")} and ${which}
    ), folded as (
      update balances b set units = b.units + due.units, updated_at = ${at} from due where b.address = due.address
    )
    update accrual_basis a set since_credit = ${credits}, carried_units = 0 from due where a.address = due.address`;
}
