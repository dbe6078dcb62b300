/**
 * Boosts (issue 26, docs/decisions.md "Boosts"): a versioned schedule of percentages by rarity and by
 * tenure (days an item has been staked without a break), with a cap on their product. An item's hourly
 * credit is `R × rarity% × tenure% / 10,000 / 24` points, R its wallet's tier rate; with every percentage a
 * whole multiple of 10 from 100 to 300 that is always a whole number of units (1 point = 2,400 units).
 * Browser-safe: pages and the CLI compute an item's rate with the same functions as the server.
 */
import { z } from "zod";
import { HOUR_MS } from "./clock.ts";
import { RARITIES, type Rarity } from "./collections.ts";
import { tierFor, UNITS_PER_POINT } from "./rewards.ts";

export const DAY_MS = 24 * HOUR_MS;
export const BOOST_MIN = 100;
export const BOOST_MAX = 300;
export const BOOST_STEP = 10;
/** The most tenure steps a schedule has. */
export const MAX_TENURE_STEPS = 10;
/** The longest tenure a step may wait for (10 years). */
export const MAX_TENURE_DAYS = 3650;

export type TenureStep = { days: number; percent: number };
export type BoostRules = {
  rarity: Record<Rarity, number>;
  tenure: TenureStep[];
  cap: number;
};
export type BoostSchedule = BoostRules & {
  /** null for the built-in defaults (no schedule was ever set). */
  version: number | null;
  effectiveFrom: Date | null;
  createdAt: Date | null;
  createdBy: string | null;
};

export const DEFAULT_BOOSTS: BoostRules = {
  rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 },
  tenure: [],
  cap: 300,
};

export const DEFAULT_SCHEDULE: BoostSchedule = { ...DEFAULT_BOOSTS, version: null, effectiveFrom: null, createdAt: null, createdBy: null };

const percentMessage = (field: string) => `${field} must be a whole multiple of ${BOOST_STEP} from ${BOOST_MIN} to ${BOOST_MAX} (percent)`;

/** A percentage field: a whole multiple of 10 from 100 to 300; the message names the field. */
export function percentSchema(field: string) {
  return z
    .number({ error: percentMessage(field) })
    .refine((value) => Number.isInteger(value) && value >= BOOST_MIN && value <= BOOST_MAX && value % BOOST_STEP === 0, {
      message: percentMessage(field),
    });
}

export const tenureStepSchema = (index: number) =>
  z.object(
    {
      days: z
        .number({ error: `tenure[${index}].days must be a whole number of days from 1 to ${MAX_TENURE_DAYS}` })
        .refine((days) => Number.isInteger(days) && days >= 1 && days <= MAX_TENURE_DAYS, {
          message: `tenure[${index}].days must be a whole number of days from 1 to ${MAX_TENURE_DAYS}`,
        }),
      percent: percentSchema(`tenure[${index}].percent`),
    },
    { error: `tenure[${index}] must be { days, percent }` },
  );

/** What the rules alone must satisfy (the body of PUT /api/admin/boosts less effectiveFrom). */
export function boostRulesIssues(rules: BoostRules): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  rules.tenure.forEach((step, i) => {
    if (i > 0 && step.days <= rules.tenure[i - 1].days) {
      issues.push({ path: `tenure[${i}].days`, message: `tenure[${i}].days must be more than tenure[${i - 1}].days (ascending days)` });
    }
  });
  return issues;
}

/** The tenure percentage of a stake whose tenure counts from `tenureFrom`, for the hour starting at `hour`. */
export function tenurePercentAt(rules: BoostRules, tenureFrom: Date, hour: Date): number {
  let percent = 100;
  for (const step of rules.tenure) {
    if (tenureFrom.getTime() + step.days * DAY_MS <= hour.getTime()) percent = step.percent;
  }
  return percent;
}

/** The step in force for the hour starting at `hour` (null before the first). */
export function tenureStepAt(rules: BoostRules, tenureFrom: Date, hour: Date): TenureStep | null {
  let found: TenureStep | null = null;
  for (const step of rules.tenure) {
    if (tenureFrom.getTime() + step.days * DAY_MS <= hour.getTime()) found = step;
  }
  return found;
}

/**
 * The next tenure step after `at`: the first whole hour at or after its threshold (a step applies from the
 * first whole hour after it, never backwards), with its percentage; null when none is left.
 */
export function nextTenureStep(rules: BoostRules, tenureFrom: Date, at: Date): { at: Date; percent: number; days: number } | null {
  for (const step of rules.tenure) {
    const threshold = tenureFrom.getTime() + step.days * DAY_MS;
    const hour = Math.ceil(threshold / HOUR_MS) * HOUR_MS;
    // The hour it applies from has not started yet.
    if (hour > at.getTime()) return { at: new Date(hour), percent: step.percent, days: step.days };
  }
  return null;
}

/** rarity% × tenure% / 100, at most the cap: a whole percentage (both are multiples of 10). */
export function combinedPercent(rules: BoostRules, rarity: Rarity, tenurePercent: number): number {
  return Math.min((rules.rarity[rarity] * tenurePercent) / 100, rules.cap);
}

/** Units an item earns in one whole hour at `combined` percent in a wallet of tier rate `dailyRate`. */
export function itemHourUnits(dailyRate: number, combined: number): number {
  return (dailyRate * UNITS_PER_POINT * combined) / 100 / 24;
}

/** Points an item earns per day at `combined` percent in a wallet of tier rate `dailyRate` (R × percent / 100). */
export function itemPerDay(dailyRate: number, combined: number): number {
  return (dailyRate * combined) / 100;
}

/** A stake as its rate reads it: the rarity it earns with and where its tenure counts from. */
export type RatedStake = { rarity: Rarity; tenureFrom: Date };

/** An open stake's combined percentage for the hour starting at `hour` (what that hour's accrual gives it). */
export function stakePercentAt(rules: BoostRules, stake: RatedStake, hour: Date): number {
  return combinedPercent(rules, stake.rarity, tenurePercentAt(rules, stake.tenureFrom, hour));
}

/** The combined percentage an item of `rarity` starts with when staked now (no tenure yet). */
export function newStakePercent(rules: BoostRules, rarity: Rarity): number {
  return combinedPercent(rules, rarity, 100);
}

/**
 * The wallet's points per day (DECISIONS "Points": `dailyRate`): each staked item at its tier's rate R
 * (of the number staked) times its combined percentage, added up. 24 whole hours of the accrual credit exactly
 * this (db/queries/accrual.server.ts credits `itemHourUnits` per item). Every rate the API, the CLI and the
 * pages show is this function's: the stake and unstake previews pass the percentages as they would be.
 */
export function walletDailyRate(combinedPercents: readonly number[]): number {
  const rate = tierFor(combinedPercents.length).dailyRatePerItem;
  const total = combinedPercents.reduce((sum, combined) => sum + itemPerDay(rate, combined), 0);
  // Each term has at most one decimal (R × a whole percent / 100): round away the float noise of the sum.
  return Math.round(total * 100) / 100;
}

/** One item's points per day in a wallet of `stakedCount` items at `combined` percent. */
export function stakedItemPerDay(stakedCount: number, combined: number): number {
  return itemPerDay(tierFor(stakedCount).dailyRatePerItem, combined);
}

/** "Legendary 150%, Epic 130%" (those above 100%) and "tenure 7 days 110%, 30 days 120%"; "no boosts" without any. */
export function boostRulesText(rules: BoostRules): string {
  const rarity = RARITIES.filter((name) => rules.rarity[name] !== 100).map((name) => `${name} ${rules.rarity[name]}%`);
  const tenure = rules.tenure.map((step) => `${step.days} ${step.days === 1 ? "day" : "days"} ${step.percent}%`);
  const parts = [...rarity, ...(tenure.length ? [`tenure ${tenure.join(", ")}`] : [])];
  if (parts.length === 0) return "no boosts (every item 100%)";
  const capped = rules.cap < BOOST_MAX ? `; at most ${rules.cap}%` : "";
  return `${parts.join(", ")}${capped}`;
}

/** The rate of one staked item now, with its parts. */
export type ItemBoost = {
  baseDaily: number;
  rarityPercent: number;
  tenurePercent: number;
  tenureDays: number | null;
  combinedPercent: number;
  perDay: number;
  nextStep: { at: Date; percent: number; days: number } | null;
};

export function itemBoost(rules: BoostRules, item: { rarity: Rarity; tenureFrom: Date }, stakedCount: number, at: Date): ItemBoost {
  const baseDaily = tierFor(stakedCount).dailyRatePerItem;
  const hour = new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
  const step = tenureStepAt(rules, item.tenureFrom, hour);
  const tenurePercent = step?.percent ?? 100;
  const combined = combinedPercent(rules, item.rarity, tenurePercent);
  return {
    baseDaily,
    rarityPercent: rules.rarity[item.rarity],
    tenurePercent,
    tenureDays: step?.days ?? null,
    combinedPercent: combined,
    perDay: itemPerDay(baseDaily, combined),
    nextStep: nextTenureStep(rules, item.tenureFrom, at),
  };
}

/** "150/day × Legendary 150% × 30 days 120% = 270/day" (the parts that are not 100% are named). */
export function describeItemRate(boost: ItemBoost, rarity: Rarity): string {
  const parts = [`${boost.baseDaily}/day`];
  if (boost.rarityPercent !== 100) parts.push(`${rarity} ${boost.rarityPercent}%`);
  if (boost.tenurePercent !== 100 && boost.tenureDays !== null) parts.push(`${boost.tenureDays} days ${boost.tenurePercent}%`);
  const capped = boost.combinedPercent < (boost.rarityPercent * boost.tenurePercent) / 100 ? ` (capped at ${boost.combinedPercent}%)` : "";
  const perDay = Number.isInteger(boost.perDay) ? String(boost.perDay) : boost.perDay.toFixed(2);
  return `${parts.join(" × ")}${capped} = ${perDay}/day`;
}

export { RARITIES };
