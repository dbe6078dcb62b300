import { describe, expect, it } from "vitest";
import type { Rewards } from "../../lib/api.ts";
import { bulkStakeNote, dailyChangeText, earnsFrom, pendingText, unstakeNote } from "./earnings.ts";

const hour = (h: number) => new Date(Date.UTC(2026, 10, 25, h)).toISOString();
/** The hour label on this machine's clock, as the page shows it. */
const label = (iso: string) => {
  const date = new Date(iso);
  return `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
};

/** A wallet with `staked` open stakes, `counted` of them open for the whole hour 21:00-22:00 (boosts adding up to `percentSum`). */
function rewards(staked: number, counted: number, percentSum = 100 * counted): Rewards {
  const perItem = counted >= 10 ? 150 : counted >= 5 ? 120 : 100;
  return {
    unclaimedRewards: 0,
    dailyRate: 0,
    rewardTier: 1,
    stakedCount: staked,
    totalCount: staked,
    stakingPercentage: 100,
    stakingSince: null,
    rank: 0,
    currentHour: {
      start: hour(21),
      creditedAt: hour(22),
      stakedCount: counted,
      tier: 1,
      percentSum,
      points: (perItem * percentSum) / 100 / 24,
    },
  };
}
const old = { isStaked: true, stakedAt: hour(20), boost: null };
const fresh = { isStaked: true, stakedAt: new Date(Date.parse(hour(21)) + 60_000).toISOString(), boost: null };

describe("earnings texts (issue 27, item 6)", () => {
  it("the hour under way: '+25.00 at 22:00'", () => {
    expect(pendingText(rewards(5, 5).currentHour)).toBe(`+25.00 at ${label(hour(22))}`);
  });
  it("the daily total before → after, with the tier only when it changes", () => {
    expect(dailyChangeText(4, 5)).toBe("400 → 600 SPOOK/day: tier 2");
    expect(dailyChangeText(1, 2)).toBe("100 → 200 SPOOK/day");
    expect(dailyChangeText(10, 9)).toBe("1,500 → 1,080 SPOOK/day: drops to tier 2");
    expect(dailyChangeText(1, 0)).toBe("100 → 0 SPOOK/day");
  });
  it("an item staked during the hour earns from the next one", () => {
    expect(earnsFrom(fresh, rewards(5, 4).currentHour)).toBe(label(hour(22)));
    expect(earnsFrom(old, rewards(5, 4).currentHour)).toBeNull();
    expect(earnsFrom({ isStaked: false, stakedAt: null }, rewards(5, 4).currentHour)).toBeNull();
  });
  it("with boosts: the hour counts each item's percent, and unstaking takes off the item's own", () => {
    // Five items at tier 2 (120/day each): one Legendary at 150% × 120% = 180%, four at 100%: 580%.
    const boosted = rewards(5, 5, 580);
    expect(pendingText(boosted.currentHour)).toBe(`+29.00 at ${label(hour(22))}`);
    // Unstaking the 180% item: four at 100% at tier 1 (100/day): 16.67.
    const legendary = { rarityPercent: 150, tenurePercent: 120, combinedPercent: 180, tenureDays: 30, tenureFrom: hour(0), nextStep: null };
    expect(unstakeNote([{ ...old, boost: legendary }], boosted)).toBe(
      `Unstaking now: this hour's +29.00 becomes +16.67 at ${label(hour(22))}. 600 → 400 SPOOK/day: drops to tier 1.`,
    );
    // Unstaking a 100% one: 180% + 3 × 100% = 480% at tier 1: 20.00.
    expect(unstakeNote([old], boosted)).toBe(
      `Unstaking now: this hour's +29.00 becomes +20.00 at ${label(hour(22))}. 600 → 400 SPOOK/day: drops to tier 1.`,
    );
  });
  it("unstaking: what the hour loses (at the tier of what is left) and the tier drop", () => {
    expect(unstakeNote([old], rewards(5, 5))).toBe(
      `Unstaking now: this hour's +25.00 becomes +16.67 at ${label(hour(22))}. 600 → 400 SPOOK/day: drops to tier 1.`,
    );
    expect(unstakeNote([fresh], rewards(3, 2))).toBe(
      "Unstaking now: this hour loses nothing (it does not count this Spook yet). 300 → 200 SPOOK/day.",
    );
    expect(bulkStakeNote(6, rewards(4, 4))).toBe(`400 → 1,500 SPOOK/day: tier 3. They earn from ${label(hour(22))}, the next whole hour.`);
  });
});
