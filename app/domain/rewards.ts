/**
 * Reward rules (DECISIONS "Points"). Points are stored as integer units: 1 point = 2,400 units, so that
 * every hourly credit (rate / 24) and 0.01 point are whole.
 */
export const UNITS_PER_POINT = 2400;

export const REWARD_TIERS = [
  { tier: 1, minStaked: 1, maxStaked: 4, dailyRatePerItem: 100 },
  { tier: 2, minStaked: 5, maxStaked: 9, dailyRatePerItem: 120 },
  { tier: 3, minStaked: 10, maxStaked: null, dailyRatePerItem: 150 },
] as const;

export type RewardTier = (typeof REWARD_TIERS)[number];

/** The tier a wallet with `stakedCount` staked items is in (tier 1 with none, the spec's default). */
export function tierFor(stakedCount: number): RewardTier {
  if (stakedCount >= 10) return REWARD_TIERS[2];
  if (stakedCount >= 5) return REWARD_TIERS[1];
  return REWARD_TIERS[0];
}

/** Daily points per staked item for a wallet with `stakedCount` staked items. */
export function perItemDailyRate(stakedCount: number): number {
  return tierFor(stakedCount).dailyRatePerItem;
}

/**
 * N × R: a wallet's points per day while no boost applies. What a wallet earns is `walletDailyRate`
 * (app/domain/boosts.ts), its items' boosted rates added up; this is that with every item at 100%.
 */
export function unboostedDailyRate(stakedCount: number): number {
  return stakedCount * perItemDailyRate(stakedCount);
}

/** Units credited for one whole hour with `stakedCount` items staked for all of it, none boosted. */
export function hourlyCreditUnits(stakedCount: number): number {
  return (unboostedDailyRate(stakedCount) * UNITS_PER_POINT) / 24;
}

export function unitsToPoints(units: number | bigint | string): number {
  return Number(units) / UNITS_PER_POINT;
}

/** Points to units, rounded to the nearest unit (callers validate at most 2 decimals first). */
export function pointsToUnits(points: number): number {
  const units = Math.round(points * UNITS_PER_POINT);
  if (!Number.isSafeInteger(units)) throw new RangeError("points out of range");
  return units;
}

/**
 * The hour under way (DECISIONS "Accrual"): hour [start, creditedAt) is credited once it has ended, to the
 * stakes open for all of it (started at or before `start`, still open), at the tier of their count. What an
 * item staked during the hour earns starts with the next whole hour.
 */
export type PendingHour = {
  start: Date;
  creditedAt: Date;
  stakedCount: number;
  tier: number;
  /** The counted items' boost percentages added up (rarity × tenure, capped): 100 an item without boosts. */
  percentSum: number;
  points: number;
};

export function pendingHour(start: Date, openAllHour: number, percentSum = 100 * openAllHour): PendingHour {
  const { tier, dailyRatePerItem } = tierFor(openAllHour);
  return {
    start,
    creditedAt: new Date(start.getTime() + 3_600_000),
    stakedCount: openAllHour,
    tier,
    percentSum,
    // As the accrual credits it (db/queries/accrual.server.ts): the tier's rate × each item's percent.
    points: (dailyRatePerItem * percentSum) / 100 / 24,
  };
}

/** Share of a wallet's items that are staked, 0-100. */
export function stakingPercentage(stakedCount: number, totalCount: number): number {
  if (totalCount <= 0) return 0;
  return Math.round((stakedCount / totalCount) * 10_000) / 100;
}
