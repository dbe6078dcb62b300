import { describe, expect, it } from "vitest";
import { approvalMessage, isCovered, NO_POLICY, oneLine, parseApprovalMessage, statusAt, summaries } from "./approvals.ts";

const AT = new Date("2026-11-01T10:00:00.000Z");

describe("what the policy covers (issue 35, item 4)", () => {
  it("nothing while it is off", () => {
    for (const kind of ["clear-points", "giveaway.delete", "boosts", "add-points", "approvals.policy"] as const) {
      expect(isCovered(NO_POLICY, kind, 1_000_000), kind).toBe(false);
    }
  });

  it("the actions it names, and additions or clears above pointsAbove", () => {
    const policy = { pointsAbove: 500, actions: ["boosts" as const] };
    expect(isCovered(policy, "boosts")).toBe(true);
    expect(isCovered(policy, "giveaway.delete")).toBe(false);
    expect(isCovered(policy, "add-points", 500)).toBe(false);
    expect(isCovered(policy, "add-points", 500.01)).toBe(true);
    expect(isCovered(policy, "clear-points", 499)).toBe(false);
    expect(isCovered(policy, "clear-points", -800)).toBe(true);
    expect(isCovered({ pointsAbove: null, actions: ["clear-points"] }, "clear-points", 1)).toBe(true);
  });

  it("a change of the policy itself while it is in force", () => {
    expect(isCovered({ pointsAbove: null, actions: ["team"] }, "approvals.policy")).toBe(true);
    expect(isCovered({ pointsAbove: 0, actions: [] }, "approvals.policy")).toBe(true);
  });
});

describe("the approver's message", () => {
  it("is `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}` and parses back", () => {
    const summary = summaries.deleteGiveaway(7, 'The "Big" prize. Really.');
    const message = approvalMessage(12, summary, AT);
    expect(message).toBe('Approve Spooks action #12: Delete giveaway #7 "The "Big" prize. Really.". Timestamp: 2026-11-01T10:00:00.000Z');
    expect(parseApprovalMessage(message)).toEqual({ id: 12, summary, timestamp: AT });
  });

  it("refuses other texts", () => {
    expect(parseApprovalMessage("Approve Spooks action #012: x. Timestamp: 2026-11-01T10:00:00.000Z")).toBeNull();
    expect(parseApprovalMessage("Approve Spooks action #12: x. Timestamp: 2026-11-01T10:00:00Z")).toBeNull();
    expect(parseApprovalMessage("Staking Spook #1 for Spook Points. Timestamp: 2026-11-01T10:00:00.000Z")).toBeNull();
  });

  it("summaries stay one line", () => {
    expect(oneLine("a\nb\t c", 80)).toBe("a b c");
    expect(oneLine("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
    expect(summaries.policy({ pointsAbove: 1000, actions: ["boosts", "team"] })).toBe(
      "Require a second signature for points above 1,000, boosts, team",
    );
    expect(summaries.policy(NO_POLICY)).toBe("Turn second signatures off");
  });
});

describe("status", () => {
  it("a pending approval past its expiry reads expired; a decided one keeps its decision", () => {
    expect(statusAt("pending", new Date(AT.getTime() + 1), AT)).toBe("pending");
    expect(statusAt("pending", AT, AT)).toBe("expired");
    expect(statusAt("approved", new Date(0), AT)).toBe("approved");
  });
});
