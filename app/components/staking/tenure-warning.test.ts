import { describe, expect, it } from "vitest";
import { tenureAtRisk, tenureResetWarning } from "./tenure-warning.ts";

const NOW = new Date("2026-11-27T06:30:00.000Z");
const daysAgo = (days: number, hours = 0) => new Date(NOW.getTime() - days * 86_400_000 - hours * 3_600_000).toISOString();

type Step = { days: number; percent: number } | null;
function item(name: string, { from, percent, next = null }: { from: string; percent: number; next?: Step }) {
  return {
    name,
    isStaked: true,
    boost: {
      rarityPercent: 150,
      tenurePercent: percent,
      combinedPercent: Math.min((150 * percent) / 100, 300),
      tenureDays: percent > 100 ? 30 : null,
      tenureFrom: from,
      nextStep: next ? { ...next, at: "2026-12-01T00:00:00.000Z" } : null,
    },
  };
}

describe("the tenure an unstake resets (issue 26, item 3)", () => {
  it("one item with a tenure boost: its whole days and its percent → 100%", () => {
    expect(tenureResetWarning([item("Spooks #1", { from: daysAgo(34, 5), percent: 120 })], NOW)).toBe(
      "Resets tenure: 34 days, 120% → 100%.",
    );
  });

  it("progress toward a next step is mentioned from one whole day on", () => {
    const next = { days: 30, percent: 120 };
    expect(tenureResetWarning([item("Spooks #2", { from: daysAgo(20), percent: 100, next })], NOW)).toBe(
      "Resets tenure: 20 days toward 30 days 120%.",
    );
    expect(tenureResetWarning([item("Spooks #2", { from: daysAgo(1), percent: 100, next })], NOW)).toBe(
      "Resets tenure: 1 day toward 30 days 120%.",
    );
    expect(tenureResetWarning([item("Spooks #2", { from: daysAgo(0, 23), percent: 100, next })], NOW)).toBeNull();
  });

  it("nothing to lose: no tenure steps, not staked, or no boost", () => {
    expect(tenureResetWarning([item("Spooks #3", { from: daysAgo(90), percent: 100 })], NOW)).toBeNull();
    expect(tenureAtRisk({ name: "Spooks #4", isStaked: false, boost: null }, NOW)).toBeNull();
    expect(tenureResetWarning([], NOW)).toBeNull();
  });

  it("several items: each named with its loss, three at most, the rest counted; items losing nothing left out", () => {
    const next = { days: 30, percent: 120 };
    const items = [
      item("Spooks #1", { from: daysAgo(34), percent: 120 }),
      item("Spooks #2", { from: daysAgo(2), percent: 100 }),
      item("Spooks #3", { from: daysAgo(20), percent: 100, next }),
      item("Spooks #4", { from: daysAgo(40), percent: 120 }),
      item("Spooks #5", { from: daysAgo(31), percent: 120 }),
    ];
    expect(tenureResetWarning(items.slice(0, 3), NOW)).toBe(
      "Resets tenure: Spooks #1 (34 days, 120% → 100%), Spooks #3 (20 days toward 30 days 120%).",
    );
    expect(tenureResetWarning(items, NOW)).toBe(
      "Resets tenure: Spooks #1 (34 days, 120% → 100%), Spooks #3 (20 days toward 30 days 120%), Spooks #4 (40 days, 120% → 100%) and 1 more.",
    );
  });
});
