import { describe, expect, it } from "vitest";
import { can, permissionsOf, refusalFor, roleRefusal, rolesWith } from "./team.ts";

describe("roles (issue 35, item 1)", () => {
  it("the owner does everything; an admin everything but the team", () => {
    expect(permissionsOf("owner")).toContain("team");
    expect(can("admin", "team")).toBe(false);
    for (const permission of [
      "points",
      "boosts",
      "giveaways",
      "giveaways.delete-closed",
      "proposals",
      "channels",
      "webhooks",
      "discord",
      "team.approve",
    ] as const) {
      expect(can("admin", permission), permission).toBe(true);
    }
  });

  it("a moderator runs giveaways and proposals, and nothing about points, boosts, channels, webhooks, Discord or closed giveaways", () => {
    expect(permissionsOf("moderator").sort()).toEqual(["approve", "giveaways", "proposals", "read"]);
    for (const permission of [
      "points",
      "boosts",
      "channels",
      "webhooks",
      "discord",
      "giveaways.delete-closed",
      "team",
      "team.approve",
    ] as const) {
      expect(can("moderator", permission), permission).toBe(false);
    }
  });

  it("a viewer reads every tab and changes nothing", () => {
    expect(permissionsOf("viewer")).toEqual(["read"]);
    expect(rolesWith("read")).toEqual(["owner", "admin", "moderator", "viewer"]);
    expect(rolesWith("team")).toEqual(["owner"]);
  });

  it("a refusal names the role and what it tried", () => {
    expect(roleRefusal("moderator", "add points")).toBe("A moderator cannot add points");
    expect(roleRefusal("admin", "manage the team")).toBe("An admin cannot manage the team");
    expect(refusalFor("viewer", { permission: "giveaways", doing: "create giveaways" })).toBe("A viewer cannot create giveaways");
    expect(refusalFor("owner", { permission: "team", doing: "manage the team" })).toBeNull();
  });
});
