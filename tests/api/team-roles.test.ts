/**
 * Every admin route of the contract (API_ROUTES) under every kind of caller (issue 35, item 7): the owner, an admin,
 * a moderator, a viewer, a non-member holding a session (as one left from before ADMIN_ADDRESS changed) and a
 * removed member. Each is let through, or refused with 403 and the message that names the role ("A moderator
 * cannot add points"); a non-member gets the spec's admin check ("Only the admin may do this") and a removed
 * member's session is over (401). The requests carry input the routes refuse (or harmless reads), so "let
 * through" shows as anything but 401/403, and nothing the table asks for changes what the next row sees.
 */
import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES } from "../../app/api/index.ts";
import type { RouteContract } from "../../app/api/kit.ts";
import { can, roleRefusal, type MemberRole } from "../../app/domain/team.ts";
import { INTENT_OPERATIONS, INTENT_REQUIREMENTS } from "../../app/components/admin/permissions.ts";
import type { AdminIntent } from "../../app/components/admin/schemas.ts";
import { startDiscordDouble, type DiscordDouble } from "../../doubles/discord/discord-double.server.ts";
import { discordEnv } from "../support/discord-env.ts";
import { newWallet, nonAdminSession, signIn, useApi, type Wallet } from "./support.ts";

let discord: DiscordDouble | undefined;

const ctx = useApi({
  env: async () => {
    discord = await startDiscordDouble({ globalPerSecond: 1000 });
    const guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 4 } });
    return discordEnv(discord, guild.id);
  },
});
afterAll(async () => {
  await discord?.close();
});

type Caller = "owner" | "admin" | "moderator" | "viewer" | "non-member" | "removed member";
const CALLERS: Caller[] = ["owner", "admin", "moderator", "viewer", "non-member", "removed member"];

const ADMIN_ROUTES = API_ROUTES.filter((route) => route.auth === "admin-session");

/** A path with its parameters filled: ids no row has (999999), another address, a delivery id of the right shape. */
function pathOf(route: RouteContract, address: string): string {
  return route.path
    .replace("{address}", address)
    .replace("{deliveryId}", "msg_abc_1")
    .replace("{id}", route.path.startsWith("/api/admin/sessions") ? "ffffffffffff" : "999999");
}

/** A request each route refuses as input (or a harmless read), so letting it through changes nothing. */
function requestOf(route: RouteContract, address: string): { body?: unknown; raw?: BodyInit; headers?: Record<string, string> } {
  if (route.body?.kind === "multipart") {
    const form = new FormData();
    form.set("note", "no image here");
    return { raw: form };
  }
  if (route.method === "GET" || route.method === "DELETE") return {};
  // Routes without a body (recalculate, reset, reject, rotate, replay) act on nothing here: no balance is negative
  // or off its ledger, and their ids name no row.
  return { body: route.body ? { not: "what this route takes", address } : undefined };
}

async function call(route: RouteContract, cookie: string, address: string) {
  const request = requestOf(route, address);
  return ctx.call(route.method, pathOf(route, address), request.body, { cookie, raw: request.raw, headers: request.headers });
}

describe("every admin route under every role", () => {
  const cookies = {} as Record<Caller, string>;
  const members = {} as Record<Caller, Wallet>;
  const outsider = newWallet();

  it("signs in the owner and three members, removes a fourth, and keeps a non-member's session", async () => {
    members.owner = ctx.admin;
    cookies.owner = await ctx.adminCookie();
    for (const role of ["admin", "moderator", "viewer"] as const) {
      members[role] = newWallet();
      const added = await ctx.call("POST", "/api/admin/team", { address: members[role].address, role }, { cookie: cookies.owner });
      expect(added.status, role).toBe(200);
      cookies[role] = await signIn(ctx, members[role]);
    }
    members["removed member"] = newWallet();
    await ctx.call("POST", "/api/admin/team", { address: members["removed member"].address, role: "admin" }, { cookie: cookies.owner });
    cookies["removed member"] = await signIn(ctx, members["removed member"]);
    const removed = await ctx.call("DELETE", `/api/admin/team/${members["removed member"].address}`, undefined, { cookie: cookies.owner });
    expect(removed.body).toEqual({ success: true });
    members["non-member"] = newWallet();
    cookies["non-member"] = await nonAdminSession(ctx.sql, members["non-member"].address);
    expect(ADMIN_ROUTES.length).toBeGreaterThan(40);
  });

  it.each(ADMIN_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))("%s", async (_name, route) => {
    expect(route.requires, "every admin route names the permission it needs").toBeDefined();
    const requirement = route.requires!;
    const rows: { caller: Caller; status: number; message?: string }[] = [];
    for (const caller of CALLERS) {
      const answer = await call(route, cookies[caller], outsider.address);
      rows.push({ caller, status: answer.status, message: answer.body?.message });
    }
    const expected = CALLERS.map((caller) => {
      if (caller === "non-member") return { caller, status: 403, message: "Only the admin may do this" };
      if (caller === "removed member") return { caller, status: 401, message: "Sign in as the admin first" };
      const role: MemberRole = caller;
      return can(role, requirement.permission)
        ? { caller, allowed: true }
        : { caller, status: 403, message: roleRefusal(role, requirement.doing) };
    });
    const seen = rows.map((row, index) =>
      "allowed" in expected[index] ? { caller: row.caller, allowed: row.status !== 401 && row.status !== 403 && row.status < 500 } : row,
    );
    expect(seen).toEqual(expected);
  });
});

describe("the words of a refusal", () => {
  it("are the same from the admin page's forms as from the API", () => {
    for (const [intent, operation] of Object.entries(INTENT_OPERATIONS)) {
      const route = API_ROUTES.find((candidate) => candidate.operationId === operation);
      expect(INTENT_REQUIREMENTS[intent as AdminIntent], intent).toEqual(route?.requires);
    }
  });

  it("name the role and what it tried", () => {
    expect(roleRefusal("moderator", "add points")).toBe("A moderator cannot add points");
    expect(roleRefusal("admin", "manage the team")).toBe("An admin cannot manage the team");
    expect(roleRefusal("viewer", "create giveaways")).toBe("A viewer cannot create giveaways");
  });
});
