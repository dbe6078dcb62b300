import { describe, expect, it } from "vitest";
import { balanceLine, formatDelta, groupByDay, timeAxis } from "./days.ts";

const entry = (id: number, at: string, delta: number, balanceAfter: number) => ({
  id,
  at,
  kind: "accrual" as const,
  delta,
  balanceAfter,
  details: { summary: "", source: "recorded" as const },
  deltaUnits: Math.round(delta * 2400),
  balanceAfterUnits: Math.round(balanceAfter * 2400),
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
    expect([formatDelta(100 / 24), formatDelta(-1200), formatDelta(0.5)]).toEqual(["+4.17", "-1,200.00", "+0.50"]);
  });
});

describe("timeAxis: the chart's time range and ticks (issue 27, item 7)", () => {
  const at = (iso: string) => Date.parse(iso);
  it("nothing to chart: no axis (no 1970 on a 0-1 scale)", () => {
    expect(timeAxis([])).toBeNull();
  });
  it("a single entry: an hour either side, hourly ticks", () => {
    const axis = timeAxis([at("2026-11-25T10:00:00Z")])!;
    expect([axis.min, axis.max]).toEqual([at("2026-11-25T09:00:00Z"), at("2026-11-25T11:00:00Z")]);
    expect(axis.ticks.map((tick) => tick.label)).toEqual(["09:00", "10:00", "11:00"]);
  });
  it("days: date ticks at UTC midnights; a midnight among hours carries its date", () => {
    const days = timeAxis([at("2026-11-22T06:00:00Z"), at("2026-11-25T02:00:00Z")])!;
    expect(days.ticks.map((tick) => tick.label)).toEqual(["Nov 23", "Nov 24", "Nov 25"]);
    const hours = timeAxis([at("2026-11-24T20:00:00Z"), at("2026-11-25T04:00:00Z")])!;
    expect(hours.ticks.map((tick) => tick.label)).toEqual(["20:00", "22:00", "Nov 25 00:00", "02:00", "04:00"]);
    expect(hours.min).toBeLessThan(at("2026-11-24T20:00:00Z"));
    expect(hours.max).toBeGreaterThan(at("2026-11-25T04:00:00Z"));
  });
  it("a history made within minutes (a new holder's first session) still has ticks, at whole minutes", () => {
    const axis = timeAxis([at("2026-11-27T05:40:10Z"), at("2026-11-27T05:41:50Z")])!;
    expect(axis.ticks.map((tick) => tick.label)).toEqual(["05:36", "05:38", "05:40", "05:42", "05:44", "05:46"]);
  });
  it("never more than 6 ticks, over a year included", () => {
    for (const span of [0.001, 0.01, 0.1, 1, 5, 30, 90, 400, 1500]) {
      const axis = timeAxis([at("2024-01-01T00:00:00Z"), at("2024-01-01T00:00:00Z") + span * 86_400_000])!;
      expect(axis.ticks.length).toBeGreaterThan(0);
      expect(axis.ticks.length).toBeLessThanOrEqual(6);
    }
  });
});
