import { describe, expect, it } from "vitest";
import type { Rewards } from "../../lib/api.ts";
import { DEFAULT_BOOSTS, type BoostRules } from "../../domain/boosts.ts";
import { bulkStakeNote, dailyChangeText, earnsFrom, pendingText, unstakeNote } from "./earnings.ts";

const hour = (h: number) => new Date(Date.UTC(2026, 10, 25, h)).toISOString();
/** The hour label as the page shows it, read in UTC here (the pages use the reader's zone, with its abbreviation). */
const label = (iso: string) => `${iso.slice(11, 16)} UTC`;
const UTC = "utc" as const;
const hundreds = (count: number) => Array.from({ length: count }, () => 100);
/** `count` staked items without boosts, the first `counted` staked before the hour 21:00 began. */
const stakedItems = (count: number, counted = count) =>
  Array.from({ length: count }, (_, i) => ({
    inscriptionId: `item-${i}`,
    isStaked: true,
    stakedAt: i < counted ? hour(20) : new Date(Date.parse(hour(21)) + 60_000).toISOString(),
    boost: null,
  }));

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
const old = { inscriptionId: "item-0", isStaked: true, stakedAt: hour(20), boost: null };
const fresh = { inscriptionId: "item-new", isStaked: true, stakedAt: new Date(Date.parse(hour(21)) + 60_000).toISOString(), boost: null };

describe("earnings texts (issue 27, item 6)", () => {
  it("the hour under way: '+25.00 at 22:00'", () => {
    expect(pendingText(rewards(5, 5).currentHour, UTC)).toBe(`+25.00 at ${label(hour(22))}`);
  });
  it("the daily total before → after, with the tier only when it changes", () => {
    expect(dailyChangeText(hundreds(4), hundreds(5))).toBe("400 → 600 SPOOK/day: tier 2");
    expect(dailyChangeText(hundreds(1), hundreds(2))).toBe("100 → 200 SPOOK/day");
    expect(dailyChangeText(hundreds(10), hundreds(9))).toBe("1,500 → 1,080 SPOOK/day: drops to tier 2");
    expect(dailyChangeText(hundreds(1), [])).toBe("100 → 0 SPOOK/day");
  });
  it("issue 33: the daily total is the boosted one (an Epic at 130% in a tier-3 wallet adds 195, not 150)", () => {
    // 23 items at 150/day, one Legendary at 150%: 22 × 150 + 225 = 3,525. Staking an Epic at 130%: + 195.
    const before = [...hundreds(22), 150];
    expect(dailyChangeText(before, [...before, 130])).toBe("3,525 → 3,720 SPOOK/day");
  });
  it("an item staked during the hour earns from the next one", () => {
    expect(earnsFrom(fresh, rewards(5, 4).currentHour, UTC)).toBe(label(hour(22)));
    expect(earnsFrom(old, rewards(5, 4).currentHour, UTC)).toBeNull();
    expect(earnsFrom({ isStaked: false, stakedAt: null }, rewards(5, 4).currentHour, UTC)).toBeNull();
  });
  it("with boosts: the hour counts each item's percent, and unstaking takes off the item's own", () => {
    // Five items at tier 2 (120/day each): one Legendary at 150% × 120% = 180%, four at 100%: 580%.
    const boosted = rewards(5, 5, 580);
    expect(pendingText(boosted.currentHour, UTC)).toBe(`+29.00 at ${label(hour(22))}`);
    // Unstaking the 180% item: four at 100% at tier 1 (100/day): 16.67; the day: 5 × 120 boosted (696) → 400.
    const legendary = { rarityPercent: 150, tenurePercent: 120, combinedPercent: 180, tenureDays: 30, tenureFrom: hour(0), nextStep: null };
    const items = [{ ...old, boost: legendary }, ...stakedItems(5).slice(1)];
    expect(unstakeNote([items[0]], boosted, items, UTC)).toBe(
      `Unstaking now: this hour's +29.00 becomes +16.67 at ${label(hour(22))}. 696 → 400 SPOOK/day: drops to tier 1.`,
    );
    // Unstaking a 100% one: 180% + 3 × 100% = 480% at tier 1: 20.00; the day 696 → 180 + 300 = 480.
    expect(unstakeNote([items[1]], boosted, items, UTC)).toBe(
      `Unstaking now: this hour's +29.00 becomes +20.00 at ${label(hour(22))}. 696 → 480 SPOOK/day: drops to tier 1.`,
    );
  });
  it("unstaking: what the hour loses (at the tier of what is left) and the tier drop", () => {
    expect(unstakeNote([old], rewards(5, 5), stakedItems(5), UTC)).toBe(
      `Unstaking now: this hour's +25.00 becomes +16.67 at ${label(hour(22))}. 600 → 400 SPOOK/day: drops to tier 1.`,
    );
    const three = [...stakedItems(2), fresh];
    expect(unstakeNote([fresh], rewards(3, 2), three, UTC)).toBe(
      "Unstaking now: this hour loses nothing (it does not count this Spook yet). 300 → 200 SPOOK/day.",
    );
    const rules: BoostRules = { ...DEFAULT_BOOSTS, rarity: { ...DEFAULT_BOOSTS.rarity, Legendary: 150 } };
    const six = Array.from({ length: 6 }, () => ({ rarityLabel: "Common" as const }));
    expect(bulkStakeNote(six, rewards(4, 4), stakedItems(4), DEFAULT_BOOSTS, UTC)).toBe(
      `400 → 1,500 SPOOK/day: tier 3. They earn from ${label(hour(22))}, the next whole hour.`,
    );
    // A Legendary at 150% among them earns 225 at tier 3: 1,575.
    expect(bulkStakeNote([...six.slice(1), { rarityLabel: "Legendary" }], rewards(4, 4), stakedItems(4), rules, UTC)).toBe(
      `400 → 1,575 SPOOK/day: tier 3. They earn from ${label(hour(22))}, the next whole hour.`,
    );
  });
});
