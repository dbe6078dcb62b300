import { describe, expect, it } from "vitest";
import {
  formatDoge,
  formatNumber,
  formatPoints,
  formatPointsDelta,
  formatPointsExact,
  pointsDecimal,
  previewText,
  shortenAddress,
  timeRemaining,
} from "./format.ts";

const ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";

describe("shortenAddress", () => {
  it("shows the first 4 and last 4 characters by default (header, top stakers)", () => {
    expect(shortenAddress(ADDRESS)).toBe("DH5y...mr7L");
  });
  it("shows 6+4 for a giveaway winner", () => {
    expect(shortenAddress(ADDRESS, 6, 4)).toBe("DH5yai...mr7L");
  });
  it("leaves a string that shortening would not shorten", () => {
    expect(shortenAddress("")).toBe("");
    expect(shortenAddress("DH5yabcmr7L")).toBe("DH5yabcmr7L");
    expect(shortenAddress("DH5yabcdmr7L")).toBe("DH5y...mr7L");
  });
});

describe("timeRemaining ('Nd Nh', 'Nh Nm', 'Nm', 'Ended')", () => {
  const at = new Date("2030-01-01T00:00:00.000Z");
  const after = (ms: number) => new Date(at.getTime() + ms);
  const MIN = 60_000;
  const HOUR = 60 * MIN;
  const DAY = 24 * HOUR;

  it.each([
    ["in the past", -1, "Ended"],
    ["exactly now", 0, "Ended"],
    ["1 ms", 1, "0m"],
    ["59 s", 59_000, "0m"],
    ["1 min", MIN, "1m"],
    ["59 min 59 s", HOUR - 1000, "59m"],
    ["1 h", HOUR, "1h 0m"],
    ["1 h 1 min", HOUR + MIN, "1h 1m"],
    ["23 h 59 min", DAY - MIN, "23h 59m"],
    ["1 day", DAY, "1d 0h"],
    ["1 day 59 min", DAY + 59 * MIN, "1d 0h"],
    ["2 days 5 h", 2 * DAY + 5 * HOUR + 30 * MIN, "2d 5h"],
    ["400 days", 400 * DAY, "400d 0h"],
  ])("%s → %s", (_, ms, text) => {
    expect(timeRemaining(after(ms), at)).toBe(text);
  });

  it("is 'Ended' for an invalid end date rather than 'NaNd'", () => {
    expect(timeRemaining(new Date("nope"), at)).toBe("Ended");
  });
});

describe("numbers in US English", () => {
  it("formatNumber uses thousands separators and a decimal point", () => {
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(999)).toBe("999");
    expect(formatNumber(1000)).toBe("1,000");
    expect(formatNumber(1234567)).toBe("1,234,567");
    expect(formatNumber(-9876543.5)).toBe("-9,876,543.5");
  });

  it("formatPoints shows whole points (floored)", () => {
    expect(formatPoints(1234.99)).toBe("1,234");
    expect(formatPoints(100 / 24)).toBe("4");
    expect(formatPoints(0)).toBe("0");
  });

  it("formatDoge shows koinu as DOGE to 2 decimals, from a number or a string", () => {
    expect(formatDoge(0)).toBe("0.00");
    expect(formatDoge(100_000_000)).toBe("1.00");
    expect(formatDoge("123456789012")).toBe("1,234.57");
    expect(formatDoge(1_000)).toBe("0.00");
    expect(formatDoge("50000000")).toBe("0.50");
  });
});

describe("previewText (150 characters then '...')", () => {
  it("keeps texts up to 150 characters and cuts longer ones", () => {
    expect(previewText("short")).toBe("short");
    expect(previewText("x".repeat(150))).toBe("x".repeat(150));
    expect(previewText("x".repeat(151))).toBe(`${"x".repeat(150)}...`);
    expect(previewText(`${"a".repeat(150)}bcdef`)).toBe(`${"a".repeat(150)}...`);
  });
});

describe("points: whole points round down, the exact value has two decimals (DECISIONS 'Points')", () => {
  it("737.5 is 737 whole and 737.50 exact; 0.999 is 0, never 1", () => {
    expect(formatPoints(737.5)).toBe("737");
    expect(formatPoints(0.999)).toBe("0");
    expect(formatPoints(1234567.99)).toBe("1,234,567");
    expect(formatPointsExact(737.5)).toBe("737.50");
    expect(formatPointsExact(100 / 24)).toBe("4.17");
    expect(formatPointsExact(1234567)).toBe("1,234,567.00");
  });
  it("deltas carry their sign; files get plain decimals", () => {
    expect([formatPointsDelta(100 / 24), formatPointsDelta(-200), formatPointsDelta(0)]).toEqual(["+4.17", "-200.00", "0.00"]);
    expect([pointsDecimal(737.5), pointsDecimal(-1200), pointsDecimal(1234567.125)]).toEqual(["737.50", "-1200.00", "1234567.13"]);
  });
});

describe("one clock (issue 33, item 5)", () => {
  const at = new Date("2026-12-01T06:12:00.000Z");
  it("UTC is marked UTC; a reader's zone carries its abbreviation", async () => {
    const { formatDate, formatDateTime, formatTime } = await import("./format.ts");
    expect(formatTime(at, "utc")).toBe("06:12 UTC");
    expect(formatDateTime(at, "utc")).toBe("Dec 1, 2026, 06:12 UTC");
    expect(formatDate(at, "utc")).toBe("Dec 1, 2026");
    expect(formatTime(at, { timeZone: "America/New_York" })).toBe("01:12 EST");
    expect(formatDateTime(at, { timeZone: "Europe/Berlin" })).toBe("Dec 1, 2026, 07:12 GMT+1");
    // 24-hour clock, midnight as 00.
    expect(formatTime(new Date("2026-12-01T00:05:00Z"), "utc")).toBe("00:05 UTC");
  });
  it("counts with the right noun", async () => {
    const { countOf } = await import("./format.ts");
    expect(countOf(1, "entry", "entries")).toBe("1 entry");
    expect(countOf(3, "entry", "entries")).toBe("3 entries");
    expect(countOf(1200, "ticket")).toBe("1,200 tickets");
  });
});
