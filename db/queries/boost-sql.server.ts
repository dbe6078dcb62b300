/**
 * The reward rules as SQL: CASE expressions over a wallet's item count (the tiers) and over a stake's rarity
 * and tenure start (issue 26's boosts), generated from app/domain/rewards.ts and from a schedule's validated
 * whole percentages, so the accrual and the /admin preview compute exactly what the domain computes item by item.
 */
import { DAY_MS, type BoostRules } from "../../app/domain/boosts.ts";
import { RARITIES } from "../../app/domain/collections.ts";
import { REWARD_TIERS, UNITS_PER_POINT } from "../../app/domain/rewards.ts";

/**
 * `case when n >= 10 then 15000 when n >= 5 then 12000 else 10000 end` (units per item per hour),
 * generated from REWARD_TIERS so the SQL can never disagree with app/domain/rewards.ts.
 */
export function perItemHourlyUnitsCase(column: string): string {
  const tiers = [...REWARD_TIERS].sort((a, b) => b.minStaked - a.minStaked);
  const unitsOf = (tier: (typeof REWARD_TIERS)[number]) => {
    const units = (tier.dailyRatePerItem * UNITS_PER_POINT) / 24;
    if (!Number.isSafeInteger(units) || !Number.isSafeInteger(tier.minStaked)) {
      throw new Error(`tier ${tier.tier} does not give a whole number of units per hour`);
    }
    return units;
  };
  const whens = tiers.slice(0, -1).map((tier) => `when ${column} >= ${tier.minStaked} then ${unitsOf(tier)}`);
  return `case ${whens.join(" ")} else ${unitsOf(tiers[tiers.length - 1])} end`;
}

/** `case when n >= 10 then 3 when n >= 5 then 2 else 1 end`: the tier of a wallet with `column` items staked. */
export function tierCase(column: string): string {
  const tiers = [...REWARD_TIERS].sort((a, b) => b.minStaked - a.minStaked);
  const whens = tiers.slice(0, -1).map((tier) => `when ${column} >= ${tier.minStaked} then ${tier.tier}`);
  return `case ${whens.join(" ")} else ${tiers[tiers.length - 1].tier} end`;
}

/** `case <rarity column> when 'Legendary' then 150 … end`: an item's rarity percentage under `rules`. */
export function rarityPercentCase(rules: BoostRules, rarity: string): string {
  const whens = RARITIES.map((name) => `when '${name}' then ${wholePercent(rules.rarity[name])}`);
  return `(case ${rarity} ${whens.join(" ")} end)`;
}

/** An item's tenure percentage for the hour starting at `hour`: the last step whose threshold is at or before it. */
export function tenurePercentCase(rules: BoostRules, hour: Date, tenureFrom: string): string {
  if (rules.tenure.length === 0) return "100";
  const whens = [...rules.tenure]
    .reverse()
    .map(
      (step) =>
        `when ${tenureFrom} <= '${new Date(hour.getTime() - step.days * DAY_MS).toISOString()}'::timestamptz then ${wholePercent(step.percent)}`,
    );
  return `(case ${whens.join(" ")} else 100 end)`;
}

/** least(rarity% × tenure% / 100, cap): exact in integers, both being multiples of 10. */
export function combinedPercentCase(rules: BoostRules, hour: Date, rarity: string, tenureFrom: string): string {
  const product = `${rarityPercentCase(rules, rarity)} * ${tenurePercentCase(rules, hour, tenureFrom)} / 100`;
  return `least(${product}, ${wholePercent(rules.cap)})`;
}

function wholePercent(value: number): number {
  if (!Number.isInteger(value) || value < 100 || value > 300 || value % 10 !== 0) throw new Error(`not a boost percentage: ${value}`);
  return value;
}
