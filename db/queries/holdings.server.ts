/**
 * What a wallet holds and earns: its items (as the indexer last saw ownership), counts, rewards figures,
 * and the leaderboard. A wallet's staked items are its open stakes on items it still owns.
 */
import { rarityLevel, type CollectionKey, type Rarity } from "../../app/domain/collections.ts";
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from "../../app/domain/leaderboard.ts";
import { hourStart, now } from "../../app/domain/clock.ts";
import { pendingHour, perItemDailyRate, stakingPercentage, tierFor, unitsToPoints, type PendingHour } from "../../app/domain/rewards.ts";
import { itemBoost, stakePercentAt, walletDailyRate, type BoostSchedule } from "../../app/domain/boosts.ts";
import type { Queryable } from "../client.server.ts";
import { FOLD_EVERY_CREDITS } from "./accrual-basis.server.ts";
import { scheduleInForce } from "./boosts.server.ts";
import { deepFreeze, KeptPerKey, KeptValue, onOneSnapshot, stampColumn } from "./hot-reads.server.ts";
import { isTransaction } from "./transaction.server.ts";

export type WalletItem = {
  id: number;
  name: string;
  inscriptionId: string;
  collection: CollectionKey;
  imageUrl: string | null;
  rarity: 1 | 2 | 3 | 4;
  rarityLabel: Rarity;
  rank: number;
  isStaked: boolean;
  stakedAt: Date | null;
  rewardRate: number;
  /** A staked item's points per day now, its boosts included (issue 26); null when not staked. */
  perDay: number | null;
  boost: {
    rarityPercent: number;
    tenurePercent: number;
    /** rarity% × tenure% / 100, at most the cap. */
    combinedPercent: number;
    tenureDays: number | null;
    tenureFrom: Date;
    nextStep: { at: Date; percent: number; days: number } | null;
  } | null;
};

export type HoldingCounts = { totalCount: number; spooksCount: number; societyCount: number; stakedCount: number };

export type Rewards = {
  unclaimedRewards: number;
  dailyRate: number;
  rewardTier: number;
  stakedCount: number;
  totalCount: number;
  stakingPercentage: number;
  stakingSince: Date | null;
  rank: number;
  /** The hour under way and what its end credits (the accrual's own rule, indexer/accrual.server.ts). */
  currentHour: PendingHour;
};

export type LeaderboardEntry = { address: string; rewards: number; dailyRate: number };

/** `… as mark`: the state of one wallet's items (migration 0110): its own counter and the one every wallet shares. */
const walletMarkColumn = (sql: Queryable, address: string) => sql`
  coalesce((select moves from wallet_marks where address = ${address}), 0)::text || ':' || (select moves from wallet_marks_shared)::text as mark`;

/** The most items kept per web process over all wallets (the least recently read wallet's dropped first). */
const KEPT_WALLET_ITEMS = 20_000;
const keptWalletItems = new KeptPerKey<WalletItem[]>(KEPT_WALLET_ITEMS, (items) => Math.max(1, items.length));

/**
 * The catalogue items the indexer says the wallet owns, with each staked item's boost for the hour under way: as
 * kept for the state of the wallet's items this request reads (its mark and the hour), or read. In a transaction
 * (which may hold changes not yet committed) always read.
 */
export async function walletItems(sql: Queryable, address: string): Promise<WalletItem[]> {
  const at = now();
  if (isTransaction(sql)) return (await readWalletItems(sql, address, at)).items;
  const hour = hourStart(at).getTime();
  const [{ mark }] = await sql<{ mark: string }[]>`select ${walletMarkColumn(sql, address)}`;
  const kept = keptWalletItems.get(sql, address, mark, hour);
  if (kept) return kept;
  const read = await readWalletItems(sql, address, at);
  keptWalletItems.set(sql, address, read.mark, hour, read.items);
  return read.items;
}

/** The wallet's items at `at`, and the mark of the state they were read from (read in the same statement). */
async function readWalletItems(sql: Queryable, address: string, at: Date): Promise<{ mark: string; items: WalletItem[] }> {
  const since = performance.now();
  const rows = await sql<
    (Omit<WalletItem, "rarity" | "rarityLabel" | "isStaked" | "rewardRate" | "perDay" | "boost"> & {
      rarity: Rarity;
      tenureFrom: Date | null;
      stakeRarity: Rarity | null;
      number: number;
      stamp: string;
      mark: string;
    })[]
  >`
    select w.stamp, w.mark, h.*
    from (select ${stampColumn(sql)}, ${walletMarkColumn(sql, address)}) as w
    left join lateral (
      select i.id, i.name, i.inscription_id, i.collection, i.image_url, i.rarity, i.rank, i.number,
             s.started_at as staked_at, s.tenure_from, s.rarity as stake_rarity
      from ownership o
      join items i on i.id = o.item_id
      left join stakes s on s.item_id = o.item_id and s.ended_at is null and s.address = o.owner_address
      where o.owner_address = ${address}
    ) as h on true
    order by h.collection, h.number`;
  const [{ mark, stamp }] = rows;
  const owned = rows.filter((row) => row.id !== null);
  if (owned.length === 0) return { mark, items: [] };
  const stakedCount = owned.filter((row) => row.stakedAt !== null).length;
  const rewardRate = perItemDailyRate(stakedCount);
  const schedule = await scheduleFor(sql, hourStart(at), { since, stamp });
  const items = owned.map(({ rarity, tenureFrom, stakeRarity, stamp: _stamp, mark: _mark, number: _number, ...row }) => {
    // The rarity its stake earns with (the item's when it was staked).
    const boost = tenureFrom ? itemBoost(schedule, { rarity: stakeRarity ?? rarity, tenureFrom }, stakedCount, at) : null;
    return {
      ...row,
      rarity: rarityLevel(rarity),
      rarityLabel: rarity,
      isStaked: row.stakedAt !== null,
      rewardRate,
      perDay: boost ? boost.perDay : null,
      boost:
        boost && tenureFrom
          ? {
              rarityPercent: boost.rarityPercent,
              tenurePercent: boost.tenurePercent,
              combinedPercent: boost.combinedPercent,
              tenureDays: boost.tenureDays,
              tenureFrom,
              nextStep: boost.nextStep,
            }
          : null,
    };
  });
  return { mark, items };
}

/**
 * Counts of the wallet's items; with `inscriptionIds`, only those among them that the wallet really owns.
 */
export async function holdingCounts(sql: Queryable, address: string, inscriptionIds?: readonly string[]): Promise<HoldingCounts> {
  const filter = inscriptionIds ? sql`and i.inscription_id = any(${inscriptionIds.map((id) => id.toLowerCase())}::text[])` : sql``;
  const [row] = await sql<HoldingCounts[]>`
    select count(*)::int as total_count,
           count(*) filter (where i.collection = 'spooks')::int as spooks_count,
           count(*) filter (where i.collection = 'spook-society')::int as society_count,
           count(s.id)::int as staked_count
    from ownership o
    join items i on i.id = o.item_id
    left join stakes s on s.item_id = o.item_id and s.ended_at is null and s.address = o.owner_address
    where o.owner_address = ${address} ${filter}`;
  return row;
}

/**
 * The most any wallet's balance can exceed its `balances` row by: FOLD_EVERY_CREDITS times the basis's highest
 * hourly credit (every wallet is folded at least that often: db/queries/accrual-basis.server.ts), plus the most
 * a new schedule's first hour carried, until every wallet has been folded since. One row, kept with the basis,
 * read first so the queries below carry their lower limit as a value the planner sees.
 */
async function unfoldedBound(sql: Queryable): Promise<number> {
  const [row] = await sql<{ bound: number }[]>`
    select max_hourly_units * ${FOLD_EVERY_CREDITS} + case when credits < carried_until then max_carried_units else 0 end as bound
    from accrual_basis_hour`;
  return Number(row?.bound ?? 0);
}

/**
 * `balances` rows from `floor` up to `top` (either open) with their balances (`wallet_balances`, written out so
 * the row's index leads).
 */
function rowsBetween(sql: Queryable, floor: number | null, top: number | null = null) {
  const above = floor === null ? sql`true` : sql`b.units >= ${floor}`;
  const below = top === null ? sql`true` : sql`b.units <= ${top}`;
  return sql`
    select b.address, b.units + coalesce(a.carried_units + a.hourly_units * (h.credits - a.since_credit), 0) as units
    from balances b left join accrual_basis a on a.address = b.address left join accrual_basis_hour h on true
    where ${above} and ${below}`;
}

/**
 * Leaderboard position (1 = most points) within the leaderboard's longest list (LEADERBOARD_MAX_LIMIT);
 * 0 ("not ranked") without points or below it. As the spec's page did, the rank is a place on the
 * leaderboard. A wallet whose row is above `units` is ahead whatever the basis adds (an index count, as
 * before the basis, which settles every wallet below the board); one whose row is within the unfolded bound
 * below `units` may be, and only those are read with their balances.
 */
export async function leaderboardRank(sql: Queryable, address: string, units: number): Promise<number> {
  if (units <= 0) return 0;
  const [{ sure }] = await sql<{ sure: number }[]>`
    select count(*)::int as sure from (
      select 1 from balances where units > ${units} order by units desc, address limit ${LEADERBOARD_MAX_LIMIT}
    ) as above`;
  if (sure >= LEADERBOARD_MAX_LIMIT) return 0;
  const floor = units - (await unfoldedBound(sql));
  const [{ near }] = await sql<{ near: number }[]>`
    select count(*)::int as near from (
      select 1 from (${rowsBetween(sql, floor, units)}) as r
      where r.units > ${units} or (r.units = ${units} and r.address < ${address})
      limit ${LEADERBOARD_MAX_LIMIT - sure}
    ) as above`;
  const ahead = sure + near;
  return ahead < LEADERBOARD_MAX_LIMIT ? ahead + 1 : 0;
}

/**
 * Each wallet's `dailyRate` (app/domain/boosts.ts `walletDailyRate`): its open stakes on items it still owns,
 * each at its combined percentage for the hour under way, under the schedule in force then. Wallets without
 * stakes are absent (0). The rewards, the leaderboard, the admin's users and the CLI all read it here.
 */
export async function dailyRatesOf(sql: Queryable, addresses: readonly string[], at: Date = now()): Promise<Map<string, number>> {
  if (addresses.length === 0) return new Map();
  const hour = hourStart(at);
  return ratesUnder(sql, await scheduleInForce(sql, hour), addresses, hour);
}

async function ratesUnder(sql: Queryable, schedule: BoostSchedule, addresses: readonly string[], hour: Date): Promise<Map<string, number>> {
  const rates = new Map<string, number>();
  if (addresses.length === 0) return rates;
  const stakes = await sql<{ address: string; rarity: Rarity; tenureFrom: Date }[]>`
    select s.address, s.rarity, s.tenure_from
    from stakes s join ownership o on o.item_id = s.item_id and o.owner_address = s.address
    where s.address = any(${addresses as string[]}::text[]) and s.ended_at is null`;
  const percents = new Map<string, number[]>();
  for (const stake of stakes) {
    percents.set(stake.address, [...(percents.get(stake.address) ?? []), stakePercentAt(schedule, stake, hour)]);
  }
  for (const [address, list] of percents) rates.set(address, walletDailyRate(list));
  return rates;
}

/** The boost percentages the hour's accrual gives these stakes, added up (`schedule`: the one in force for the hour). */
function hourPercentSum(schedule: BoostSchedule, hour: Date, stakes: { rarity: Rarity; tenureFrom: Date }[]): number {
  return stakes.reduce((sum, stake) => sum + stakePercentAt(schedule, stake, hour), 0);
}

/** The wallets with the most points (at most `limit`), with their balances in units, most first (ties by address). */
async function topBalances(sql: Queryable, limit: number): Promise<{ address: string; units: number }[]> {
  // The `limit`-th highest row is a floor under the `limit`-th balance, so only rows within the unfolded bound
  // below it can be on the board.
  const [nth] = await sql<{ units: number }[]>`select units from balances order by units desc, address offset ${limit - 1} limit 1`;
  const floor = nth === undefined ? null : Number(nth.units) - (await unfoldedBound(sql));
  return sql<{ address: string; units: number }[]>`
    select address, units from (${rowsBetween(sql, floor)}) as r
    where units > 0 order by units desc, address limit ${limit}`;
}

/** The leaderboard's longest list as one state of the database and one hour gave it, and what it was computed with. */
type Standings = {
  entries: LeaderboardEntry[];
  /** Each listed wallet's place (1 = most points): its rank. */
  places: Map<string, number>;
  /** The schedule in force for the hour. */
  schedule: BoostSchedule;
};

/** Recomputed when the stamp or the hour moves (db/queries/hot-reads.server.ts): a balance, a stake, a schedule, an owner changed. */
const keptStandings = new KeptValue<Standings>((sql, hour) =>
  onOneSnapshot(sql, hour, async (tx) => {
    const at = new Date(hour);
    const schedule = await scheduleInForce(tx, at);
    const rows = await topBalances(tx, LEADERBOARD_MAX_LIMIT);
    const rates = await ratesUnder(
      tx,
      schedule,
      rows.map((row) => row.address),
      at,
    );
    const entries = rows.map((row) => ({
      address: row.address,
      rewards: unitsToPoints(row.units),
      dailyRate: rates.get(row.address) ?? 0,
    }));
    return { entries, places: new Map(entries.map((entry, i) => [entry.address, i + 1])), schedule };
  }),
);

/** The schedule in force, kept alone for the reads that need nothing else kept (a wallet's items). */
const keptSchedule = new KeptValue<BoostSchedule>((sql, hour) => onOneSnapshot(sql, hour, (tx) => scheduleInForce(tx, new Date(hour))));

/**
 * The schedule in force for `hour`, as kept for the state the caller read (`stamp`, read after `since`), or read
 * now. In a transaction (which may hold changes not yet committed, so not yet stamped), always read.
 */
async function scheduleFor(sql: Queryable, hour: Date, read: { since: number; stamp: string }): Promise<BoostSchedule> {
  if (isTransaction(sql)) return scheduleInForce(sql, hour);
  return (await keptSchedule.since(sql, read.since, hour.getTime(), read.stamp)).value;
}

/** Tries of `rewardsOf` to find the kept standings of the state it read before it counts the rank itself. */
const REWARDS_TRIES = 3;

/** The most wallets whose rewards are kept per web process (the least recently read dropped first). */
const KEPT_REWARDS = 10_000;
/** A wallet's rewards as one state (its stamp) and hour gave them, with the rank from the standings of that state. */
const keptRewards = new KeptPerKey<Rewards>(KEPT_REWARDS, () => 1);

/**
 * A wallet's rewards. `afterOwnWrite`: the answer to the wallet's own write, which has just made the kept standings
 * stale: its rank is counted for it alone (a few indexed reads) instead of waiting for the standings every later
 * reader shares to be computed again (the top 1,000 balances and their rates: a fifth of a Stake All's time).
 */
export async function rewardsOf(sql: Queryable, address: string, { afterOwnWrite = false } = {}): Promise<Rewards> {
  const hour = hourStart(now());
  const keeps = !isTransaction(sql) && !afterOwnWrite;
  // A wallet read before in this hour: its answer again while the state is the one it came from (the stamp alone
  // read); a wallet not read before goes straight to the read below, which reads the stamp with it.
  if (keeps && keptRewards.holds(sql, address, hour.getTime())) {
    const [{ stamp }] = await sql<{ stamp: string }[]>`select ${stampColumn(sql)}`;
    const kept = keptRewards.get(sql, address, stamp, hour.getTime());
    if (kept) return kept;
  }
  for (let tries = 1; ; tries++) {
    const since = performance.now();
    // The balance, the items, and every open stake (owned or not) with whether the wallet still owns its item.
    const rows = await sql<
      {
        stamp: string;
        units: number | null;
        totalCount: number;
        rarity: Rarity | null;
        tenureFrom: Date | null;
        startedAt: Date | null;
        owned: boolean;
      }[]
    >`
      select w.stamp, w.units, w.total_count, s.rarity, s.tenure_from, s.started_at, o.item_id is not null as owned
      from (
        select ${stampColumn(sql)},
               (select units from wallet_balances where address = ${address}) as units,
               (select count(*)::int from ownership where owner_address = ${address}) as total_count
      ) as w
      left join stakes s on s.address = ${address} and s.ended_at is null
      left join ownership o on o.item_id = s.item_id and o.owner_address = s.address`;
    const [{ stamp, totalCount }] = rows;
    const units = rows[0].units ?? 0;
    const stakes = rows.flatMap(({ rarity, tenureFrom, startedAt, owned }) =>
      rarity && tenureFrom && startedAt ? [{ rarity, tenureFrom, startedAt, owned }] : [],
    );
    const kept = keeps ? await keptStandings.since(sql, since, hour.getTime(), stamp) : null;
    // The rank and schedule of the state the balance was read from: kept, or (in a transaction, after the wallet's
    // own write, or while the database changes faster than the standings are computed) counted for this wallet alone.
    const read =
      kept?.stamp === stamp
        ? { schedule: kept.value.schedule, rank: units > 0 ? (kept.value.places.get(address) ?? 0) : 0 }
        : kept && tries < REWARDS_TRIES
          ? null
          : { schedule: await scheduleInForce(sql, hour), rank: await leaderboardRank(sql, address, units) };
    if (!read) continue;
    const staked = stakes.filter((stake) => stake.owned);
    // As creditHour counts them (db/queries/accrual.server.ts): open since the hour began, not ended since.
    const openAllHour = stakes.filter((stake) => stake.startedAt <= hour);
    const stakingSince = staked.reduce<Date | null>((min, stake) => (min === null || stake.startedAt < min ? stake.startedAt : min), null);
    const answer: Rewards = {
      unclaimedRewards: unitsToPoints(units),
      dailyRate: staked.length ? walletDailyRate(staked.map((stake) => stakePercentAt(read.schedule, stake, hour))) : 0,
      rewardTier: tierFor(staked.length).tier,
      stakedCount: staked.length,
      totalCount,
      stakingPercentage: stakingPercentage(staked.length, totalCount),
      stakingSince,
      rank: read.rank,
      currentHour: pendingHour(hour, openAllHour.length, hourPercentSum(read.schedule, hour, openAllHour)),
    };
    // Kept only when every figure is of the one state the stamp names (the rank from that state's standings).
    if (keeps && kept?.stamp === stamp) keptRewards.set(sql, address, stamp, hour.getTime(), answer);
    return answer;
  }
}

/**
 * Wallets with points, most first (ties by address, the same order `leaderboardRank` counts): the kept
 * standings of the state read now (db/queries/hot-reads.server.ts), or in a transaction counted there.
 */
export async function leaderboard(sql: Queryable, limit = LEADERBOARD_DEFAULT_LIMIT): Promise<LeaderboardEntry[]> {
  if (isTransaction(sql)) return countLeaderboard(sql, limit);
  const since = performance.now();
  const [{ stamp }] = await sql<{ stamp: string }[]>`select ${stampColumn(sql)}`;
  const kept = await keptStandings.since(sql, since, hourStart(now()).getTime(), stamp);
  return boardOf(kept.value.entries, limit);
}

/** Each kept standings' boards by length, made once and frozen, so each board's answer is serialized once. */
const boards = new WeakMap<LeaderboardEntry[], Map<number, LeaderboardEntry[]>>();

function boardOf(entries: LeaderboardEntry[], limit: number): LeaderboardEntry[] {
  let byLimit = boards.get(entries);
  if (!byLimit) boards.set(entries, (byLimit = new Map<number, LeaderboardEntry[]>()));
  let board = byLimit.get(limit);
  if (!board) byLimit.set(limit, (board = deepFreeze(entries.slice(0, limit))));
  return board;
}

/** The leaderboard counted from the balances now, nothing kept: what the kept standings hold (their test compares). */
export async function countLeaderboard(sql: Queryable, limit = LEADERBOARD_DEFAULT_LIMIT): Promise<LeaderboardEntry[]> {
  const rows = await topBalances(sql, limit);
  const rates = await dailyRatesOf(
    sql,
    rows.map((row) => row.address),
  );
  return rows.map((row) => ({ address: row.address, rewards: unitsToPoints(row.units), dailyRate: rates.get(row.address) ?? 0 }));
}

/**
 * Whether the wallet holds an item (as the indexer last saw it) or ever staked one: a holder, the only kind of
 * wallet that may ask the site to email a mailbox (issue 32, item 1). Two index probes.
 */
export async function holdsOrHasStaked(sql: Queryable, address: string): Promise<boolean> {
  const [row] = await sql<{ holder: boolean }[]>`
    select exists (select 1 from ownership where owner_address = ${address})
        or exists (select 1 from stakes where address = ${address}) as holder`;
  return row.holder;
}
