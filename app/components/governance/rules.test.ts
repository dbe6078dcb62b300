import { describe, expect, test } from "vitest";
import { outcomeText, quorumRuleText, quorumStatusText, VOTE_CHANGE_TEXTS, voteChangeText } from "./rules.ts";

describe("a proposal's rules in words (issue 26, item 4)", () => {
  test("a vote is said to be unchangeable only where it is", () => {
    expect(voteChangeText(true)).toBe(VOTE_CHANGE_TEXTS.allowed);
    expect(voteChangeText(true)).not.toMatch(/cannot/);
    expect(voteChangeText(false)).toBe("One vote per wallet: a vote cannot be changed.");
  });

  test("the quorum as set, and as counted", () => {
    expect(quorumRuleText(null)).toBe("None");
    expect(quorumRuleText({ kind: "power", value: 1500 })).toBe("1,500 voting power");
    expect(quorumRuleText({ kind: "percent", value: 20 })).toBe("20% of the voting power staked at the start");
    expect(quorumRuleText({ kind: "percent", value: 20 }, { short: true })).toBe("20% of the voting power");
    const percent = { kind: "percent" as const, value: 20, requiredPower: 4, stakedAtStart: 18 };
    expect(quorumStatusText(percent, true, false)).toBe("20% of the voting power staked at the start (4 of 18): reached");
    expect(quorumStatusText(percent, false, false)).toMatch(/: not reached yet$/);
    expect(quorumStatusText(percent, false, true)).toMatch(/\(4 of 18\): not reached$/);
    expect(quorumStatusText({ ...percent, requiredPower: null, stakedAtStart: null }, null, false)).toBe(
      "20% of the voting power staked at the start",
    );
    expect(quorumStatusText({ kind: "power", value: 5, requiredPower: 5, stakedAtStart: 18 }, false, true)).toBe(
      "5 voting power: not reached",
    );
  });

  test("outcomes: the API's words capitalised, a winning option's text as it is", () => {
    expect(outcomeText("passed")).toBe("Passed");
    expect(outcomeText("quorum not met")).toBe("Quorum not met");
    expect(outcomeText("Costume contest")).toBe("Costume contest");
  });
});
