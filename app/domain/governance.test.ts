import { describe, expect, it } from "vitest";
import { normalizeOptions, proposalStatus, YES_NO_OPTIONS } from "./governance.ts";

describe("proposalStatus (before start → upcoming, start..end → active, after → completed)", () => {
  const start = new Date("2030-03-01T12:00:00.000Z");
  const end = new Date("2030-03-08T12:00:00.000Z");
  const at = (ms: number) => new Date(ms);

  it.each([
    ["a day before start", start.getTime() - 86_400_000, "upcoming"],
    ["1 ms before start", start.getTime() - 1, "upcoming"],
    ["at start", start.getTime(), "active"],
    ["1 ms after start", start.getTime() + 1, "active"],
    ["1 ms before end", end.getTime() - 1, "active"],
    ["at end", end.getTime(), "active"],
    ["1 ms after end", end.getTime() + 1, "completed"],
    ["a year after end", end.getTime() + 365 * 86_400_000, "completed"],
  ])("%s → %s", (_, ms, status) => {
    expect(proposalStatus(start, end, at(ms))).toBe(status);
  });
});

describe("normalizeOptions", () => {
  it("gives yes_no proposals exactly Yes and No, whatever was typed", () => {
    expect(YES_NO_OPTIONS).toEqual(["Yes", "No"]);
    expect(normalizeOptions("yes_no", [])).toEqual(["Yes", "No"]);
    expect(normalizeOptions("yes_no", ["Maybe", "Later", "Never"])).toEqual(["Yes", "No"]);
  });

  it("trims multiple-choice options and drops blank ones, keeping order", () => {
    expect(normalizeOptions("multiple_choice", ["  Red ", "", "   ", "\tBlue\n", "Green"])).toEqual(["Red", "Blue", "Green"]);
    expect(normalizeOptions("multiple_choice", [])).toEqual([]);
  });

  it("does not alias the shared Yes/No list", () => {
    const options = normalizeOptions("yes_no", []);
    options.push("Maybe");
    expect(normalizeOptions("yes_no", [])).toEqual(["Yes", "No"]);
  });
});
