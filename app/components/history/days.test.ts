import { describe, expect, it } from "vitest";
import { balanceLine, formatDelta, groupByDay } from "./days.ts";

const entry = (id: number, at: string, delta: number, balanceAfter: number) => ({
  id,
  at,
  kind: "accrual" as const,
  delta,
  balanceAfter,
  details: { summary: "", source: "recorded" as const },
});

describe("history days", () => {
  const entries = [
    entry(4, "2026-11-25T10:00:00.000Z", 100 / 24, 300 + 100 / 24),
    entry(3, "2026-11-25T01:00:00.000Z", -50, 300),
    entry(2, "2026-11-24T23:00:00.000Z", 100 / 24, 350),
    entry(1, "2026-11-24T01:00:00.000Z", 350 - 100 / 24, 350 - 100 / 24),
  ];

  it("groups newest day first, with each day's net change and closing balance", () => {
    expect(
      groupByDay(entries).map(({ day, net, closingBalance, entries }) => [day, net, closingBalance, entries.map((e) => e.id)]),
    ).toEqual([
      ["2026-11-25", 100 / 24 - 50, 300 + 100 / 24, [4, 3]],
      ["2026-11-24", 350, 350, [2, 1]],
    ]);
  });

  it("draws the balance oldest first and shows deltas to 2 decimals with a sign", () => {
    expect(balanceLine(entries).map((point) => point.y)).toEqual([350 - 100 / 24, 350, 300, 300 + 100 / 24]);
    expect([formatDelta(100 / 24), formatDelta(-1200), formatDelta(0.5)]).toEqual(["+4.17", "-1,200", "+0.5"]);
  });
});
