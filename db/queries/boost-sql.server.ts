/**
 * The boost rules as SQL (issue 26): CASE expressions over a stake's rarity and tenure start, generated from a
 * schedule's validated whole percentages, so the accrual's one statement and the /admin preview compute
 * exactly what app/domain/boosts.ts computes item by item.
 */
import { DAY_MS, type BoostRules } from "../../app/domain/boosts.ts";
import { RARITIES } from "../../app/domain/collections.ts";

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
