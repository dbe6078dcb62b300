/**
 * What the staking page says about earnings (issue 27, item 6; issue 33, item 3), from the server's figures:
 * the hour under way (`Rewards.currentHour`, counted as the hourly accrual counts it), the daily total before →
 * after a stake or unstake with its tier, and what unstaking now costs the hour. Every daily figure is
 * `walletDailyRate` (app/domain/boosts.ts) of the items' boosted percentages, the rate the accrual credits.
 * Pure, so it is tested without a page.
 */
import { newStakePercent, walletDailyRate, type BoostRules } from "../../domain/boosts.ts";
import { formatNumber, formatPointsExact, formatTime, type ClockZone } from "../../domain/format.ts";
import { pendingHour, tierFor } from "../../domain/rewards.ts";
import type { Rewards, WalletItem } from "../../lib/api.ts";

/** A whole hour on the holder's clock, with its zone: '22:00 GMT+1' ('22:00 UTC' in a UTC browser). */
export function hourLabel(at: Date | string, zone: ClockZone = "local"): string {
  return formatTime(at, zone);
}

/** '+25.00 at 22:00 UTC': what the hour under way credits, and when. */
export function pendingText(currentHour: Rewards["currentHour"], zone: ClockZone = "local"): string {
  return `+${formatPointsExact(currentHour.points)} at ${hourLabel(currentHour.creditedAt, zone)}`;
}

type Rated = Pick<WalletItem, "isStaked" | "boost" | "inscriptionId">;

/** The combined boost percentage of each staked item (100 for one without boosts): what `walletDailyRate` adds up. */
export function stakedPercents(items: readonly Rated[]): number[] {
  return items.filter((item) => item.isStaked).map((item) => item.boost?.combinedPercent ?? 100);
}

/** The wallet's items' percentages once `targets` are unstaked. */
export function percentsWithout(items: readonly Rated[], targets: readonly Rated[]): number[] {
  const leaving = new Set(targets.map((item) => item.inscriptionId));
  return stakedPercents(items.filter((item) => !leaving.has(item.inscriptionId)));
}

/** The wallet's items' percentages once `targets` are staked (each at its rarity's percentage, no tenure yet). */
export function percentsWith(items: readonly Rated[], targets: readonly Pick<WalletItem, "rarityLabel">[], rules: BoostRules): number[] {
  return [...stakedPercents(items), ...targets.map((item) => newStakePercent(rules, item.rarityLabel))];
}

/**
 * '3,450 → 3,600 SPOOK/day: tier 2' from the staked items' percentages before and after (the tier only when it
 * changes; 'drops to tier 1' when it falls).
 */
export function dailyChangeText(before: readonly number[], after: readonly number[]): string {
  const tierBefore = tierFor(before.length).tier;
  const tierAfter = tierFor(after.length).tier;
  const change = `${formatNumber(walletDailyRate(before))} → ${formatNumber(walletDailyRate(after))} SPOOK/day`;
  if (after.length === 0 || tierBefore === tierAfter) return change;
  return tierAfter > tierBefore ? `${change}: tier ${tierAfter}` : `${change}: drops to tier ${tierAfter}`;
}

/** Whether the hour under way counts the item (staked at or before the hour began). */
export function countsThisHour(item: Pick<WalletItem, "isStaked" | "stakedAt">, currentHour: Rewards["currentHour"]): boolean {
  return item.isStaked && item.stakedAt !== null && Date.parse(item.stakedAt) <= Date.parse(currentHour.start);
}

/** When a staked item starts to earn: null when the hour under way already counts it, else the next whole hour. */
export function earnsFrom(
  item: Pick<WalletItem, "isStaked" | "stakedAt">,
  currentHour: Rewards["currentHour"],
  zone: ClockZone = "local",
): string | null {
  if (!item.isStaked || countsThisHour(item, currentHour)) return null;
  return hourLabel(currentHour.creditedAt, zone);
}

/** What unstaking `targets` costs the hour under way: its credit without the ones it counts (at the tier of what is left). */
export function unstakeHourText(
  targets: readonly Pick<WalletItem, "isStaked" | "stakedAt" | "boost">[],
  rewards: Rewards,
  zone: ClockZone = "local",
): string {
  const { currentHour } = rewards;
  const counted = targets.filter((item) => countsThisHour(item, currentHour));
  if (counted.length === 0) return "Unstaking now: this hour loses nothing (it does not count this Spook yet).";
  const percentLeft = currentHour.percentSum - counted.reduce((sum, item) => sum + (item.boost?.combinedPercent ?? 100), 0);
  const after = pendingHour(new Date(currentHour.start), Math.max(0, currentHour.stakedCount - counted.length), Math.max(0, percentLeft));
  return `Unstaking now: this hour's +${formatPointsExact(currentHour.points)} becomes +${formatPointsExact(after.points)} at ${hourLabel(currentHour.creditedAt, zone)}.`;
}

/**
 * What unstaking `targets` now costs: the hour under way, and the daily total before → after with its tier.
 * 'Unstaking now: this hour's +16.67 becomes +12.50 at 22:00 UTC. 600 → 400 SPOOK/day: drops to tier 1.'
 */
export function unstakeNote(
  targets: readonly (Rated & Pick<WalletItem, "stakedAt">)[],
  rewards: Rewards,
  items: readonly Rated[],
  zone: ClockZone = "local",
): string {
  const change = dailyChangeText(stakedPercents(items), percentsWithout(items, targets));
  return `${unstakeHourText(targets, rewards, zone)} ${change}.`;
}

/** 'Earns from 22:00 UTC, the next whole hour.': when an item staked now starts to earn. */
export function earnsFromText(currentHour: Rewards["currentHour"], zone: ClockZone = "local"): string {
  return `Earns from ${hourLabel(currentHour.creditedAt, zone)}, the next whole hour.`;
}

/** Staking `targets` now: the daily total before → after with the tier, and when they start to earn. */
export function bulkStakeNote(
  targets: readonly Pick<WalletItem, "rarityLabel">[],
  rewards: Rewards,
  items: readonly Rated[],
  rules: BoostRules,
  zone: ClockZone = "local",
): string {
  const when = `They earn from ${hourLabel(rewards.currentHour.creditedAt, zone)}, the next whole hour.`;
  return `${dailyChangeText(stakedPercents(items), percentsWith(items, targets, rules))}. ${when}`;
}
