/**
 * What a wallet holds and earns: its items (as the indexer last saw ownership), counts, rewards figures,
 * and the leaderboard. A wallet's staked items are its open stakes on items it still owns.
 */
import { rarityLevel, type CollectionKey, type Rarity } from "../../app/domain/collections.ts";
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from "../../app/domain/leaderboard.ts";
import { hourStart, now } from "../../app/domain/clock.ts";
import {
  dailyRate,
  pendingHour,
  perItemDailyRate,
  stakingPercentage,
  tierFor,
  unitsToPoints,
  type PendingHour,
} from "../../app/domain/rewards.ts";
import { combinedPercent, itemBoost, tenurePercentAt } from "../../app/domain/boosts.ts";
import type { Queryable } from "../client.server.ts";
import { FOLD_EVERY_CREDITS } from "./accrual-basis.server.ts";
import { scheduleInForce } from "./boosts.server.ts";

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

export type LeaderboardEntry = { address: string; rewards: number };

export async function walletItems(sql: Queryable, address: string): Promise<WalletItem[]> {
  const rows = await sql<
    (Omit<WalletItem, "rarity" | "rarityLabel" | "isStaked" | "rewardRate" | "perDay" | "boost"> & {
      rarity: Rarity;
      tenureFrom: Date | null;
      stakeRarity: Rarity | null;
    })[]
  >`
    select i.id, i.name, i.inscription_id, i.collection, i.image_url, i.rarity, i.rank, s.started_at as staked_at,
           s.tenure_from, s.rarity as stake_rarity
    from ownership o
    join items i on i.id = o.item_id
    left join stakes s on s.item_id = o.item_id and s.ended_at is null and s.address = o.owner_address
    where o.owner_address = ${address}
    order by i.collection, i.number`;
  const stakedCount = rows.filter((row) => row.stakedAt !== null).length;
  const rewardRate = perItemDailyRate(stakedCount);
  const at = now();
  const schedule = await scheduleInForce(sql, hourStart(at));
  return rows.map(({ rarity, tenureFrom, stakeRarity, ...row }) => {
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
 * hourly credit (every wallet is folded at least that often: db/queries/accrual-basis.server.ts). One index
 * read, asked first so the queries below carry their lower limit as a value the planner sees.
 */
async function unfoldedBound(sql: Queryable): Promise<number> {
  const [row] = await sql<{ bound: number }[]>`
    select coalesce(max(hourly_units), 0)::int8 * ${FOLD_EVERY_CREDITS} as bound from accrual_basis`;
  return Number(row.bound);
}

/**
 * `balances` rows from `floor` up to `top` (either open) with their balances (`wallet_balances`, written out so
 * the row's index leads).
 */
function rowsBetween(sql: Queryable, floor: number | null, top: number | null = null) {
  const above = floor === null ? sql`true` : sql`b.units >= ${floor}`;
  const below = top === null ? sql`true` : sql`b.units <= ${top}`;
  return sql`
    select b.address, b.units + coalesce(a.hourly_units * (h.credits - a.since_credit), 0) as units
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

/** The boost percentages the hour's accrual gives these stakes, added up (the schedule in force for the hour). */
async function hourPercentSum(sql: Queryable, hour: Date, stakes: { rarity: Rarity; tenureFrom: string }[]): Promise<number> {
  if (stakes.length === 0) return 0;
  const schedule = await scheduleInForce(sql, hour);
  return stakes.reduce(
    (sum, stake) => sum + combinedPercent(schedule, stake.rarity, tenurePercentAt(schedule, new Date(stake.tenureFrom), hour)),
    0,
  );
}

export async function rewardsOf(sql: Queryable, address: string): Promise<Rewards> {
  const hour = hourStart(now());
  const [row] = await sql<
    {
      units: number | null;
      totalCount: number;
      stakedCount: number;
      stakingSince: Date | null;
      openAllHour: { rarity: Rarity; tenureFrom: string }[];
    }[]
  >`
    select (select units from wallet_balances where address = ${address}) as units,
           (select count(*)::int from ownership where owner_address = ${address}) as total_count,
           -- As creditHour counts them (db/queries/accrual.server.ts): open since the hour began, not ended since.
           (select coalesce(json_agg(json_build_object('rarity', rarity, 'tenureFrom', tenure_from)), '[]') from stakes
             where address = ${address} and started_at <= ${hour} and ended_at is null) as open_all_hour,
           count(s.id)::int as staked_count,
           min(s.started_at) as staking_since
    from stakes s
    join ownership o on o.item_id = s.item_id and o.owner_address = s.address
    where s.address = ${address} and s.ended_at is null`;
  const units = row.units ?? 0;
  return {
    unclaimedRewards: unitsToPoints(units),
    dailyRate: dailyRate(row.stakedCount),
    rewardTier: tierFor(row.stakedCount).tier,
    stakedCount: row.stakedCount,
    totalCount: row.totalCount,
    stakingPercentage: stakingPercentage(row.stakedCount, row.totalCount),
    stakingSince: row.stakingSince,
    rank: await leaderboardRank(sql, address, units),
    currentHour: pendingHour(hour, row.openAllHour.length, await hourPercentSum(sql, hour, row.openAllHour)),
  };
}

/**
 * Wallets with points, most first (ties by address, the same order `leaderboardRank` counts). The `limit`-th
 * highest row is a floor under the `limit`-th balance, so only rows within the unfolded bound below it can
 * be on the board.
 */
export async function leaderboard(sql: Queryable, limit = LEADERBOARD_DEFAULT_LIMIT): Promise<LeaderboardEntry[]> {
  const [nth] = await sql<{ units: number }[]>`select units from balances order by units desc, address offset ${limit - 1} limit 1`;
  const floor = nth === undefined ? null : Number(nth.units) - (await unfoldedBound(sql));
  const rows = await sql<{ address: string; units: number }[]>`
    select address, units from (${rowsBetween(sql, floor)}) as r
    where units > 0 order by units desc, address limit ${limit}`;
  return rows.map((row) => ({ address: row.address, rewards: unitsToPoints(row.units) }));
}
