/**
 * What unstaking gives up of an item's tenure (issue 26, item 3): the single unstake's note and the
 * "Unstake All" dialog say it alike. Unstaking ends the stake, so staking again counts tenure from 0 days.
 */
import type { WalletItem } from "../../lib/api.ts";

const DAY_MS = 86_400_000;

type Boosted = Pick<WalletItem, "name" | "isStaked" | "boost">;

/** The tenure an item would lose: its whole days staked, its tenure percent and the step it is heading to. */
export type TenureAtRisk = { name: string; days: number; percent: number; next: { days: number; percent: number } | null };

/**
 * Null when unstaking loses nothing worth a warning: not staked, no boost above 100%, and less than a whole
 * day toward a next step (docs/decisions.md "The unstake warnings").
 */
export function tenureAtRisk(item: Boosted, now: Date): TenureAtRisk | null {
  if (!item.isStaked || !item.boost) return null;
  const days = Math.max(0, Math.floor((now.getTime() - Date.parse(item.boost.tenureFrom)) / DAY_MS));
  const { tenurePercent, nextStep } = item.boost;
  if (tenurePercent <= 100 && !(nextStep && days >= 1)) return null;
  return { name: item.name, days, percent: tenurePercent, next: nextStep ? { days: nextStep.days, percent: nextStep.percent } : null };
}

const dayCount = (days: number) => `${days} ${days === 1 ? "day" : "days"}`;

/** "34 days, 120% → 100%" or "20 days toward 30 days 120%". */
export function tenureLossText(risk: TenureAtRisk): string {
  if (risk.percent > 100 || !risk.next) return `${dayCount(risk.days)}, ${risk.percent}% → 100%`;
  return `${dayCount(risk.days)} toward ${dayCount(risk.next.days)} ${risk.next.percent}%`;
}

const NAMED = 3;

/**
 * The warning for unstaking `items`: "Resets tenure: 34 days, 120% → 100%." for one item, "Resets tenure:
 * Spooks #1 (34 days, 120% → 100%), Spooks #2 (20 days toward 30 days 120%) and 2 more." for several; null
 * when none of them loses anything.
 */
export function tenureResetWarning(items: readonly Boosted[], now: Date = new Date()): string | null {
  const risks = items.map((item) => tenureAtRisk(item, now)).filter((risk): risk is TenureAtRisk => risk !== null);
  if (risks.length === 0) return null;
  if (items.length === 1) return `Resets tenure: ${tenureLossText(risks[0])}.`;
  const named = risks
    .slice(0, NAMED)
    .map((risk) => `${risk.name} (${tenureLossText(risk)})`)
    .join(", ");
  const more = risks.length > NAMED ? ` and ${risks.length - NAMED} more` : "";
  return `Resets tenure: ${named}${more}.`;
}
