/**
 * The Discord double's guild routes and rate limits, driven by the client the product uses (@discordjs/rest with
 * discord-api-types' Routes), so what is proven is that the library's own handling (errors, retries, buckets,
 * the dropped token) works against the double as REAL-WORLD.md "Discord" says it works against Discord.
 */
import { DiscordAPIError, HTTPError, REST } from "@discordjs/rest";
import { Routes, type APIGuildMember, type APIRole } from "discord-api-types/v10";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "./discord-double.server.ts";
import { bucketHash } from "./rate-limits.ts";

const SNOWFLAKE = /^\d{17,19}$/;

let discord: DiscordDouble;
let guild: GuildView;
const roleId = (name: string, view: GuildView = guild) => view.roles.find((role) => role.name === name)!.id;

/** A fresh client, as the product makes one: the double's API, version 10, the bot's token. */
function botClient(options: Partial<ConstructorParameters<typeof REST>[0]> = {}) {
  return new REST({ api: discord.apiUrl, version: "10", ...options }).setToken(discord.botToken);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function newMember(view: GuildView = guild, roles: string[] = []) {
  const user = discord.createUser();
  discord.addMember(view.id, user.id, { roles });
  return user.id;
}

beforeAll(async () => {
  discord = await startDiscordDouble();
  guild = discord.createGuild({
    name: "Spooks",
    roles: [
      { name: "Holder", position: 1 },
      { name: "Staker", position: 2 },
      { name: "Moderator", position: 4 },
      { name: "Server Booster", position: 5, managed: true },
    ],
    botRole: { position: 3 },
  });
});
afterAll(() => discord.close());
afterEach(() => discord.resetStats());

describe("guild roles and members, as @discordjs/rest reads them", () => {
  it("lists the roles with their ids, positions and managed flags; @everyone has the guild's id", async () => {
    const roles = (await botClient().get(Routes.guildRoles(guild.id))) as APIRole[];
    expect(roles.map((role) => [role.name, role.position, role.managed])).toEqual([
      ["@everyone", 0, false],
      ["Holder", 1, false],
      ["Staker", 2, false],
      ["Moderator", 4, false],
      ["Server Booster", 5, true],
      ["Spooks Bot", 3, true],
    ]);
    expect(roles[0].id).toBe(guild.id);
    for (const role of roles) expect(role.id).toMatch(SNOWFLAKE);
    expect(roles.find((role) => role.name === "Spooks Bot")!.tags).toEqual({ bot_id: discord.botUserId });
  });

  it("reads a member with its roles, and pages through the member list by `after`", async () => {
    const userId = newMember(guild, ["Holder"]);
    const member = (await botClient().get(Routes.guildMember(guild.id, userId))) as APIGuildMember;
    expect(member).toMatchObject({ roles: [roleId("Holder")], user: { id: userId, discriminator: "0" } });
    expect(member.joined_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);

    const big = discord.createGuild({ botRole: { position: 1 } });
    for (let i = 0; i < 2_100; i++) newMember(big);
    const rest = botClient();
    const seen: string[] = [];
    let after = "0";
    for (;;) {
      const page = (await rest.get(Routes.guildMembers(big.id), {
        query: new URLSearchParams({ limit: "1000", after }),
      })) as APIGuildMember[];
      seen.push(...page.map((m) => m.user.id));
      if (page.length < 1000) break;
      after = page.at(-1)!.user.id;
    }
    expect(seen).toHaveLength(2_101); // the bot is a member too
    expect(new Set(seen).size).toBe(2_101);
    expect(discord.stats().byRoute["GET /guilds/{guild}/members"]).toBe(3);
    expect(await rejection(rest.get(Routes.guildMembers(big.id), { query: new URLSearchParams({ limit: "1001" }) }))).toMatchObject({
      status: 400,
      code: 50035,
      rawError: { errors: { limit: { _errors: [{ code: "NUMBER_TYPE_MAX" }] } } },
    });
  });

  it("refuses the member list without the privileged GUILD_MEMBERS intent: 403 50001", async () => {
    const closed = discord.createGuild({ botRole: { position: 1 }, membersIntent: false });
    expect(await rejection(botClient().get(Routes.guildMembers(closed.id)))).toMatchObject({ status: 403, code: 50001 });
  });
});

describe("role changes with the hierarchy", () => {
  it("adds and removes a role below the bot's: 204 with no body, the audit reason decoded and recorded", async () => {
    const userId = newMember();
    const rest = botClient();
    const reason = "Spooks: staked 3 items — Ghost tier ✓";
    expect(await rest.put(Routes.guildMemberRole(guild.id, userId, roleId("Staker")), { reason })).toEqual(new ArrayBuffer(0));
    expect(discord.memberRoles(guild.id, userId)).toEqual([roleId("Staker")]);
    await rest.put(Routes.guildMemberRole(guild.id, userId, roleId("Staker")), { reason });
    await rest.delete(Routes.guildMemberRole(guild.id, userId, roleId("Staker")));
    expect(discord.memberRoles(guild.id, userId)).toEqual([]);
    expect(discord.roleChanges().filter((change) => change.userId === userId)).toMatchObject([
      { action: "add", roleId: roleId("Staker"), reason, changed: true },
      { action: "add", roleId: roleId("Staker"), reason, changed: false },
      { action: "remove", roleId: roleId("Staker"), reason: null, changed: true },
    ]);
    expect(discord.requests().map((r) => r.status)).toEqual([204, 204, 204]);
    expect(discord.requests()[0].userAgent).toMatch(/^DiscordBot \(https:\/\/discord\.js\.org, [\d.]+\)/);
  });

  it("refuses a role at or above the bot's highest, a managed role: 403 50013, as DiscordAPIError", async () => {
    const userId = newMember();
    const rest = botClient();
    for (const name of ["Moderator", "Spooks Bot", "Server Booster"]) {
      const error = await rejection(rest.put(Routes.guildMemberRole(guild.id, userId, roleId(name))));
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect(error).toMatchObject({ status: 403, code: 50013, message: "Missing Permissions" });
    }
    expect(discord.memberRoles(guild.id, userId)).toEqual([]);
    expect(discord.stats().invalidRequests).toBe(3);
  });

  it("refuses a managed role even below the bot's highest: 403 50013", async () => {
    const linked = discord.createGuild({ roles: [{ name: "Subscriber", position: 1, managed: true }], botRole: { position: 2 } });
    const userId = newMember(linked);
    expect(await rejection(botClient().put(Routes.guildMemberRole(linked.id, userId, roleId("Subscriber", linked))))).toMatchObject({
      status: 403,
      code: 50013,
    });
  });

  it("counts the bot's highest role, its own or another it holds: a role at that very position is refused", async () => {
    const ranked = discord.createGuild({
      roles: [
        { name: "Holder", position: 1 },
        { name: "Helper", position: 3 },
        { name: "Admin", position: 4 },
      ],
      botRole: { position: 2 },
      botExtraRoles: ["Helper"],
    });
    const userId = newMember(ranked);
    const rest = botClient();
    await rest.put(Routes.guildMemberRole(ranked.id, userId, roleId("Holder", ranked)));
    for (const name of ["Helper", "Admin"]) {
      expect(await rejection(rest.put(Routes.guildMemberRole(ranked.id, userId, roleId(name, ranked))))).toMatchObject({
        status: 403,
        code: 50013,
      });
    }
    expect(discord.memberRoles(ranked.id, userId)).toEqual([roleId("Holder", ranked)]);
  });

  it("refuses every role change when the bot's roles lack Manage Roles: 403 50013", async () => {
    const weak = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2, permissions: "0" } });
    const userId = newMember(weak);
    expect(await rejection(botClient().put(Routes.guildMemberRole(weak.id, userId, roleId("Holder", weak))))).toMatchObject({
      status: 403,
      code: 50013,
    });
  });

  it("answers @everyone and an unknown role 404 10011, a non-member 404 10007, an unknown guild or one the bot left 404 10004", async () => {
    const userId = newMember();
    const rest = botClient();
    const stranger = discord.createUser().id;
    const cases: [() => Promise<unknown>, number][] = [
      [() => rest.put(Routes.guildMemberRole(guild.id, userId, guild.id)), 10011],
      [() => rest.put(Routes.guildMemberRole(guild.id, userId, "1234567890123456789")), 10011],
      [() => rest.put(Routes.guildMemberRole(guild.id, stranger, roleId("Holder"))), 10007],
      [() => rest.get(Routes.guildMember(guild.id, stranger)), 10007],
      [() => rest.get(Routes.guildRoles("1234567890123456789")), 10004],
    ];
    for (const [call, code] of cases) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect(error).toMatchObject({ status: 404, code });
    }
    const left = discord.createGuild({ botRole: { position: 1 } });
    discord.removeBotFromGuild(left.id);
    expect(await rejection(rest.get(Routes.guildRoles(left.id)))).toMatchObject({ status: 404, code: 10004 });
  });

  it("answers a path id that is not a number 400 50035, naming the field", async () => {
    const answer = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/members/someone`, {
      headers: { authorization: `Bot ${discord.botToken}` },
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      code: 50035,
      message: "Invalid Form Body",
      errors: { user_id: { _errors: [{ code: "NUMBER_TYPE_COERCE", message: 'Value "someone" is not snowflake.' }] } },
    });
  });
});

describe("authorization", () => {
  it("answers a bad bot token 401 {message, code: 0}; @discordjs/rest then drops its token and calls no more", async () => {
    const rest = new REST({ api: discord.apiUrl, version: "10" }).setToken("not-the-token");
    const error = await rejection(rest.get(Routes.guildRoles(guild.id)));
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 401, code: 0, rawError: { message: "401: Unauthorized", code: 0 } });
    expect(await rejection(rest.get(Routes.guildRoles(guild.id)))).toMatchObject({ message: expect.stringMatching(/token/i) });
    expect(discord.stats()).toMatchObject({ requests: 1, invalidRequests: 1, byStatus: { 401: 1 } });
  });

  it("answers 401 after the bot's token is reset, and GET /users/@me with the bot's token is the bot", async () => {
    const spare = await startDiscordDouble();
    try {
      const rest = new REST({ api: spare.apiUrl, version: "10" }).setToken(spare.botToken);
      expect(await rest.get(Routes.user())).toMatchObject({ id: spare.botUserId, bot: true });
      spare.resetBotToken();
      expect(await rejection(rest.get(Routes.user()))).toMatchObject({ status: 401 });
    } finally {
      await spare.close();
    }
  });

  it("sends errors as JSON with Content-Type application/json, unknown routes 404 and wrong methods 405", async () => {
    const headers = { authorization: `Bot ${discord.botToken}` };
    const unknown = await fetch(`${discord.apiUrl}/v10/nowhere`, { headers });
    expect([unknown.status, unknown.headers.get("content-type"), await unknown.json()]).toEqual([
      404,
      "application/json",
      { message: "404: Not Found", code: 0 },
    ]);
    const wrongMethod = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/roles`, { method: "POST", headers });
    expect([wrongMethod.status, await wrongMethod.json()]).toEqual([405, { message: "405: Method Not Allowed", code: 0 }]);
  });
});

describe("rate limits", () => {
  const RATE_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-reset-after", "x-ratelimit-bucket"];

  it("sends the X-RateLimit headers on every answer, success or error, and X-RateLimit-Global never outside a global 429", async () => {
    const stranger = discord.createUser().id;
    for (const [path, status] of [
      [`/guilds/${guild.id}/roles`, 200],
      [`/guilds/${guild.id}/members/${stranger}`, 404],
    ] as const) {
      const answer = await fetch(`${discord.apiUrl}/v10${path}`, { headers: { authorization: `Bot ${discord.botToken}` } });
      expect(answer.status).toBe(status);
      for (const header of RATE_HEADERS) expect(answer.headers.get(header), header).not.toBeNull();
      expect(answer.headers.has("x-ratelimit-global")).toBe(false);
      expect(answer.headers.has("x-ratelimit-scope")).toBe(false);
      expect(Number(answer.headers.get("x-ratelimit-reset")) * 1000).toBeGreaterThan(Date.now() - 1000);
    }
    const unauthorized = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/roles`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("x-ratelimit-bucket")).toBe(bucketHash("guild-roles"));
  });

  it("answers a client that ignores the headers 429 (scope user, whole-second Retry-After, no X-RateLimit-Global)", async () => {
    discord.setRateLimit("guild-roles", { limit: 2, windowMs: 2_000 });
    try {
      const call = () => fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/roles`, { headers: { authorization: `Bot ${discord.botToken}` } });
      await call();
      const last = await call();
      expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^[12]$/);
      expect(refused.headers.get("x-ratelimit-scope")).toBe("user");
      expect(refused.headers.has("x-ratelimit-global")).toBe(false);
      const body = await refused.json();
      expect(body).toEqual({ message: "You are being rate limited.", retry_after: expect.any(Number), global: false });
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(2);
      expect(discord.stats()).toMatchObject({ rateLimited: 1, invalidRequests: 1 });
    } finally {
      discord.setRateLimit("guild-roles", { limit: 10, windowMs: 10_000 });
    }
  });

  it("has @discordjs/rest wait out a 429's Retry-After and retry it, once", async () => {
    const userId = newMember();
    discord.failNext("PUT /guilds/{guild}/members/{user}/roles/{role}", { status: 429, retryAfter: 0.2 });
    await botClient().put(Routes.guildMemberRole(guild.id, userId, roleId("Holder")));
    const [refused, retried] = discord.requests();
    expect([refused.status, retried.status]).toEqual([429, 204]);
    // Retry-After is whole seconds (1 here): the library waits it (+50 ms), not the fractional retry_after.
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(1_000);
    expect(discord.memberRoles(guild.id, userId)).toEqual([roleId("Holder")]);
  });

  it("marks only a global 429 with X-RateLimit-Global: true, and the library waits it out", async () => {
    const userId = newMember();
    discord.failNext("GET /guilds/{guild}/members/{user}", { status: 429, retryAfter: 0.1, scope: "global" });
    const raw = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/members/${userId}`, {
      headers: { authorization: `Bot ${discord.botToken}` },
    });
    expect([raw.status, raw.headers.get("x-ratelimit-global"), raw.headers.get("x-ratelimit-scope")]).toEqual([429, "true", "global"]);
    expect(await raw.json()).toEqual({ message: "You are being rate limited.", retry_after: 0.1, global: true });

    discord.failNext("GET /guilds/{guild}/members/{user}", { status: 429, retryAfter: 0.1, scope: "global" });
    expect(await botClient().get(Routes.guildMember(guild.id, userId))).toMatchObject({ user: { id: userId } });
    expect(discord.requests().map((r) => r.status)).toEqual([429, 429, 200]);
    expect(discord.stats().invalidRequests).toBe(2);
  });

  it("counts a 429 of scope shared as no invalid request, with its own message", async () => {
    discord.failNext("GET /guilds/{guild}/roles", { status: 429, retryAfter: 0.1, scope: "shared" });
    const raw = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/roles`, { headers: { authorization: `Bot ${discord.botToken}` } });
    expect(await raw.json()).toMatchObject({ message: "The resource is being rate limited.", global: false });
    expect(discord.stats()).toMatchObject({ rateLimited: 1, invalidRequests: 0 });
  });

  it("has the library retry 5xx answers 3 times, then give up with HTTPError", async () => {
    discord.failNext("GET /guilds/{guild}/roles", { status: 500, times: 2 });
    expect(await botClient().get(Routes.guildRoles(guild.id))).toHaveLength(6);
    expect(discord.requests().map((r) => r.status)).toEqual([500, 500, 200]);
    discord.resetStats();
    discord.failNext("GET /guilds/{guild}/roles", { status: 502, times: 4 });
    const error = await rejection(botClient().get(Routes.guildRoles(guild.id)));
    expect(error).toBeInstanceOf(HTTPError);
    expect(error).toMatchObject({ status: 502 });
    expect(discord.stats().requests).toBe(4);
  });

  it("has @discordjs/rest honour the bucket: N requests under M per window take the expected windows, none refused", async () => {
    const windowMs = 300;
    discord.setRateLimit("member-roles", { limit: 3, windowMs });
    try {
      const rest = botClient();
      const users = Array.from({ length: 10 }, () => newMember());
      const started = Date.now();
      await Promise.all(users.map((userId) => rest.put(Routes.guildMemberRole(guild.id, userId, roleId("Holder")))));
      const elapsed = Date.now() - started;
      // 10 requests at 3 a window: 4 windows, so at least 3 full waits.
      expect(elapsed).toBeGreaterThanOrEqual(3 * windowMs - 50);
      expect(discord.stats()).toMatchObject({ requests: 10, rateLimited: 0, invalidRequests: 0 });
    } finally {
      discord.setRateLimit("member-roles", { limit: 10, windowMs: 10_000 });
    }
  });

  it("gives PUT and DELETE of a member's role one bucket (one X-RateLimit-Bucket), which the library shares once it has seen it", async () => {
    const windowMs = 300;
    discord.setRateLimit("member-roles", { limit: 3, windowMs });
    try {
      const rest = botClient();
      const buckets: string[] = [];
      rest.on("response", (_request, response) => void buckets.push(response.headers.get("x-ratelimit-bucket") ?? ""));
      const users = Array.from({ length: 6 }, () => newMember(guild, ["Holder"]));
      // The library learns each method's bucket from its first answer.
      await rest.put(Routes.guildMemberRole(guild.id, users[0], roleId("Staker")));
      await rest.delete(Routes.guildMemberRole(guild.id, users[0], roleId("Staker")));
      expect(buckets).toEqual([bucketHash("member-roles"), bucketHash("member-roles")]);
      await new Promise((resolve) => setTimeout(resolve, windowMs + 20));
      discord.resetStats();
      const started = Date.now();
      await Promise.all(
        users.map((userId, i) =>
          i % 2 === 0
            ? rest.put(Routes.guildMemberRole(guild.id, userId, roleId("Staker")))
            : rest.delete(Routes.guildMemberRole(guild.id, userId, roleId("Holder"))),
        ),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(windowMs - 50);
      expect(discord.stats()).toMatchObject({ requests: 6, rateLimited: 0 });
    } finally {
      discord.setRateLimit("member-roles", { limit: 10, windowMs: 10_000 });
    }
  });

  it("keeps a window per guild (the major parameter): two guilds do not wait for each other", async () => {
    discord.setRateLimit("member-roles", { limit: 3, windowMs: 5_000 });
    try {
      const other = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
      const rest = botClient();
      const started = Date.now();
      await Promise.all(
        [guild, other].flatMap((view) =>
          Array.from({ length: 3 }, () => rest.put(Routes.guildMemberRole(view.id, newMember(view), roleId("Holder", view)))),
        ),
      );
      expect(Date.now() - started).toBeLessThan(4_000); // far from the 5 s a wait would take
      expect(discord.stats()).toMatchObject({ requests: 6, rateLimited: 0 });
    } finally {
      discord.setRateLimit("member-roles", { limit: 10, windowMs: 10_000 });
    }
  });

  it("refuses a second client sharing the bot's bucket 429; the library waits the window and no request is refused twice", async () => {
    discord.setRateLimit("guild-member", { limit: 4, windowMs: 1_000 });
    try {
      const users = Array.from({ length: 8 }, () => newMember());
      const [first, second] = [botClient(), botClient()];
      await Promise.all(users.map((userId, i) => (i % 2 === 0 ? first : second).get(Routes.guildMember(guild.id, userId))));
      const stats = discord.stats();
      expect(stats.byStatus[200]).toBe(8);
      expect(stats.rateLimited).toBeGreaterThan(0);
      expect(Math.max(...Object.values(stats.refusals))).toBe(1);
    } finally {
      discord.setRateLimit("guild-member", { limit: 5, windowMs: 1_000 });
    }
  });

  it("enforces 50 requests a second per bot globally (configurable): a client told the same limit is never refused", async () => {
    discord.setGlobalPerSecond(5);
    try {
      const users = Array.from({ length: 7 }, () => newMember());
      const careful = botClient({ globalRequestsPerSecond: 5 });
      await Promise.all(users.map((userId, i) => careful.get(i % 2 ? Routes.guildMember(guild.id, userId) : Routes.guildRoles(guild.id))));
      expect(discord.stats()).toMatchObject({ requests: 7, rateLimited: 0 });

      discord.resetStats(); // and the double's windows
      const eager = botClient(); // believes 50 a second
      await Promise.all(users.map((userId, i) => eager.get(i % 2 ? Routes.guildMember(guild.id, userId) : Routes.guildRoles(guild.id))));
      const stats = discord.stats();
      expect(stats.byStatus[200]).toBe(7);
      expect(stats.rateLimited).toBeGreaterThan(0);
      expect(Math.max(...Object.values(stats.refusals))).toBe(1);
    } finally {
      discord.setGlobalPerSecond(50);
    }
  });
});

describe("control routes (loopback, for browser tests)", () => {
  const control = (action: string, body?: unknown) =>
    fetch(
      `${discord.url}/control/${action}`,
      body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    );

  it("sets up a guild, a user and a membership, grants through the API, and reads the role changes and counters", async () => {
    const created = (await (
      await control("guild", { roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } })
    ).json()) as GuildView;
    const user = await (await control("user", { username: "pumpkin" })).json();
    expect(user).toMatchObject({ username: "pumpkin", discriminator: "0" });
    expect(await (await control("member", { guildId: created.id, userId: user.id })).json()).toEqual({ roles: [] });
    await botClient().put(Routes.guildMemberRole(created.id, user.id, roleId("Holder", created)), { reason: "via control" });
    expect(await (await control("role-changes")).json()).toContainEqual(
      expect.objectContaining({ userId: user.id, reason: "via control" }),
    );
    expect(await (await control("stats")).json()).toMatchObject({ byRoute: { "PUT /guilds/{guild}/members/{user}/roles/{role}": 1 } });
    expect((await control("fail", { route: "GET /guilds/{guild}/roles", status: 503 })).status).toBe(200);
    expect(
      (await fetch(`${discord.apiUrl}/v10/guilds/${created.id}/roles`, { headers: { authorization: `Bot ${discord.botToken}` } })).status,
    ).toBe(503);
  });

  it("answers a bad body 400 {message}, an unknown action 404, a read with POST 405", async () => {
    const bad = await control("member", { guildId: "nope" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/bad body for \/control\/member/);
    expect((await control("launch", {})).status).toBe(404);
    expect((await control("stats", {})).status).toBe(405);
  });
});
