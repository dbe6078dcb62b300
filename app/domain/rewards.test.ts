import { describe, expect, it } from "vitest";
import {
  unboostedDailyRate,
  hourlyCreditUnits,
  perItemDailyRate,
  pointsToUnits,
  stakingPercentage,
  tierFor,
  UNITS_PER_POINT,
  unitsToPoints,
} from "./rewards.ts";

describe("tiers and rates (DECISIONS: 1-4 → 100/day, 5-9 → 120/day, 10+ → 150/day)", () => {
  it.each([
    [0, 1, 100],
    [1, 1, 100],
    [4, 1, 100],
    [5, 2, 120],
    [9, 2, 120],
    [10, 3, 150],
    [100, 3, 150],
  ])("%i staked → tier %i at %i per item per day", (staked, tier, rate) => {
    expect(tierFor(staked).tier).toBe(tier);
    expect(perItemDailyRate(staked)).toBe(rate);
    expect(unboostedDailyRate(staked)).toBe(staked * rate);
  });

  it("the wallet's daily total is N × R of N's tier, not a blend of tiers", () => {
    expect(unboostedDailyRate(4)).toBe(400);
    expect(unboostedDailyRate(5)).toBe(600);
    expect(unboostedDailyRate(9)).toBe(1080);
    expect(unboostedDailyRate(10)).toBe(1500);
  });
});

describe("amounts in units (1 point = 2,400 units)", () => {
  it("every hourly credit is a whole number of units, and 24 of them are exactly N × R points", () => {
    expect(UNITS_PER_POINT).toBe(2400);
    for (let staked = 0; staked <= 150; staked++) {
      const units = hourlyCreditUnits(staked);
      expect(Number.isSafeInteger(units), `hourly units for ${staked} staked`).toBe(true);
      expect(units * 24).toBe(staked * perItemDailyRate(staked) * UNITS_PER_POINT);
      expect(unitsToPoints(units * 24)).toBe(unboostedDailyRate(staked));
    }
  });

  it("one item at tier 1 earns 100/24 points an hour = 10,000 units", () => {
    expect(hourlyCreditUnits(1)).toBe(10_000);
    expect(hourlyCreditUnits(5)).toBe(5 * 120 * 100);
    expect(hourlyCreditUnits(10)).toBe(10 * 150 * 100);
  });

  it("converts between points and units exactly down to 0.01 point", () => {
    expect(pointsToUnits(1)).toBe(2400);
    expect(pointsToUnits(0.01)).toBe(24);
    expect(pointsToUnits(1.15)).toBe(2760);
    expect(pointsToUnits(-2.5)).toBe(-6000);
    expect(unitsToPoints(24)).toBe(0.01);
    expect(unitsToPoints("4800")).toBe(2);
    expect(unitsToPoints(7200n)).toBe(3);
    expect(() => pointsToUnits(Number.MAX_SAFE_INTEGER)).toThrow(RangeError);
  });
});

describe("stakingPercentage", () => {
  it("is 0-100 with two decimals, and 0 for an empty wallet", () => {
    expect(stakingPercentage(0, 0)).toBe(0);
    expect(stakingPercentage(0, 5)).toBe(0);
    expect(stakingPercentage(1, 3)).toBe(33.33);
    expect(stakingPercentage(2, 3)).toBe(66.67);
    expect(stakingPercentage(3, 3)).toBe(100);
  });
});
