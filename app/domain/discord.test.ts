/** Issue 33, item 7: the Discord preview says why, with the member's figures. */
import { describe, expect, it } from "vitest";
import { DAY_MS, metConditions, previewChangeText, unmetConditions } from "./discord.ts";

const at = new Date("2026-12-01T00:00:00Z");
const standing = { staked: 23, legendary: 0, points: 480.5, oldestStakeSince: new Date(at.getTime() - 12 * DAY_MS) };

describe("discord rule reasons", () => {
  it("names every condition missed with what the member has", () => {
    expect(unmetConditions({ roleId: "r", minStaked: 30 }, standing, at)).toEqual(["needs 30 staked, has 23"]);
    expect(unmetConditions({ roleId: "r", minStaked: 20, minLegendary: 1, minPoints: 500, minStakedDays: 30 }, standing, at)).toEqual([
      "needs 1 Legendary staked, has 0",
      "needs 500 points, has 480",
      "needs 30 days staking, has 12",
    ]);
    expect(unmetConditions({ roleId: "r", minStaked: 23 }, standing, at)).toEqual([]);
  });
  it("a gain says what the member has; a change reads as a sentence with a shortened address", () => {
    expect(metConditions({ roleId: "r", minStaked: 3 }, standing, at)).toBe("has 23 staked");
    expect(
      previewChangeText({
        address: "DPXCa1b2c3d4e5f6g7h8i9j0k1l2m6t8A",
        roleName: "Staker",
        kind: "lose",
        reason: "needs 30 staked, has 23",
      }),
    ).toBe("DPXC…6t8A would lose Staker (needs 30 staked, has 23)");
  });
});
