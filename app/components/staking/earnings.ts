/**
 * What the staking page says about earnings (issue 27, item 6), from the server's figures: the hour under
 * way (`Rewards.currentHour`, counted as the hourly accrual counts it), the daily total before → after a
 * stake or unstake with its tier, and what unstaking now costs the hour. Pure, so it is tested without a page.
 */
import { format } from "date-fns";
import { formatNumber, formatPointsExact } from "../../domain/format.ts";
import { dailyRate, pendingHour, tierFor } from "../../domain/rewards.ts";
import type { Rewards, WalletItem } from "../../lib/api.ts";

/** A whole hour on the holder's clock: '22:00'. */
export function hourLabel(at: Date | string): string {
  return format(new Date(at), "HH:mm");
}

/** '+25.00 at 22:00': what the hour under way credits, and when. */
export function pendingText(currentHour: Rewards["currentHour"]): string {
  return `+${formatPointsExact(currentHour.points)} at ${hourLabel(currentHour.creditedAt)}`;
}

/** '400 → 600 SPOOK/day: tier 2' (the tier only when it changes; 'drops to tier 1' when it falls). */
export function dailyChangeText(stakedBefore: number, stakedAfter: number): string {
  const before = tierFor(stakedBefore).tier;
  const after = tierFor(stakedAfter).tier;
  const change = `${formatNumber(dailyRate(stakedBefore))} → ${formatNumber(dailyRate(stakedAfter))} SPOOK/day`;
  if (stakedAfter === 0 || before === after) return change;
  return after > before ? `${change}: tier ${after}` : `${change}: drops to tier ${after}`;
}

/** Whether the hour under way counts the item (staked at or before the hour began). */
export function countsThisHour(item: Pick<WalletItem, "isStaked" | "stakedAt">, currentHour: Rewards["currentHour"]): boolean {
  return item.isStaked && item.stakedAt !== null && Date.parse(item.stakedAt) <= Date.parse(currentHour.start);
}

/** When a staked item starts to earn: null when the hour under way already counts it, else the next whole hour. */
export function earnsFrom(item: Pick<WalletItem, "isStaked" | "stakedAt">, currentHour: Rewards["currentHour"]): string | null {
  if (!item.isStaked || countsThisHour(item, currentHour)) return null;
  return hourLabel(currentHour.creditedAt);
}

/**
 * What unstaking `items` now costs: the hour under way without the ones it counts (at the tier of what is
 * left), and the daily total with its tier. 'Unstaking now: this hour's +16.67 becomes +12.50 at 22:00.
 * 600 → 400 SPOOK/day: drops to tier 1.'
 */
export function unstakeNote(items: readonly Pick<WalletItem, "isStaked" | "stakedAt" | "boost">[], rewards: Rewards): string {
  const { currentHour } = rewards;
  const counted = items.filter((item) => countsThisHour(item, currentHour));
  const parts: string[] = [];
  if (counted.length > 0) {
    const percentLeft = currentHour.percentSum - counted.reduce((sum, item) => sum + (item.boost?.combinedPercent ?? 100), 0);
    const after = pendingHour(new Date(currentHour.start), Math.max(0, currentHour.stakedCount - counted.length), Math.max(0, percentLeft));
    parts.push(
      `Unstaking now: this hour's +${formatPointsExact(currentHour.points)} becomes +${formatPointsExact(after.points)} at ${hourLabel(currentHour.creditedAt)}.`,
    );
  } else {
    parts.push("Unstaking now: this hour loses nothing (it does not count this Spook yet).");
  }
  const staked = items.filter((item) => item.isStaked).length;
  parts.push(`${dailyChangeText(rewards.stakedCount, Math.max(0, rewards.stakedCount - staked))}.`);
  return parts.join(" ");
}

/** 'Earns from 22:00, the next whole hour.': when an item staked now starts to earn. */
export function earnsFromText(currentHour: Rewards["currentHour"]): string {
  return `Earns from ${hourLabel(currentHour.creditedAt)}, the next whole hour.`;
}

/** Staking `count` more now: the daily total before → after with the tier, and when they start to earn. */
export function bulkStakeNote(count: number, rewards: Rewards): string {
  const when = `They earn from ${hourLabel(rewards.currentHour.creditedAt)}, the next whole hour.`;
  return `${dailyChangeText(rewards.stakedCount, rewards.stakedCount + count)}. ${when}`;
}
