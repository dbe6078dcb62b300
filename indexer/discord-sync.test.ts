/**
 * The role sync and the reconciliation sweep (issue 25, items 4 and 5) against the Discord double over real
 * HTTP, on the test database: what earns a role (staked, Legendary, points, days), what loses it, only the
 * rules' roles touched, a member who left skipped and synced again on rejoining, a role that became
 * unassignable reported once, a refused bot token stopping the sync, and a sweep of 2,000 linked members
 * with no request refused twice. (Linking itself, over the app's HTTP: tests/api/discord.test.ts.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DiscordConfig } from "../app/utils/env.server.ts";
import { createDiscordClient, type DiscordClient } from "../app/utils/discord.server.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { addPoints, clearPoints } from "../db/queries/points.server.ts";
import { replaceRules } from "../db/queries/discord.server.ts";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../doubles/discord/discord-double.server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { sweepRoles, syncRoles } from "./discord-sync.server.ts";
import { openStake, seedItems, testAddress, type SeededItem } from "./test-support.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let items: (SeededItem & { rarity: string })[];
let discord: DiscordDouble;
let guild: GuildView;
let config: DiscordConfig;
let client: DiscordClient;
const logger = createLogger("indexer", { logLevel: "silent" as never });
let run = 0;

const role = (name: string) => guild.roles.find((candidate) => candidate.name === name)!.id;
const options = () => ({ sql: db.sql, config, logger, client });

async function member(label: string, roles: string[] = []) {
  const user = discord.createUser({ username: label.slice(0, 30) });
  discord.addMember(guild.id, user.id, { roles });
  const address = testAddress(`${label}-${run}`);
  await db.sql`insert into discord_links (address, discord_user_id, username, linked_at) values (${address}, ${user.id}, ${label}, now())`;
  return { address, userId: user.id };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await seedItems(db.sql, 60);
  items = await db.sql<
    (SeededItem & { rarity: string })[]
  >`select id, inscription_id, collection, rarity from items order by rarity = 'Legendary' desc, id limit 10`;
  discord = await startDiscordDouble({ globalPerSecond: 5000 });
});
afterAll(async () => {
  await discord.close();
  await db.close();
});

beforeEach(async () => {
  run += 1;
  await db.sql`delete from discord_links`;
  await db.sql`delete from discord_role_grants`;
  await db.sql`delete from discord_problems`;
  await db.sql`delete from stakes`;
  guild = discord.createGuild({
    roles: [
      { name: "Staker", position: 1 },
      { name: "Whale", position: 2 },
      { name: "Legend", position: 3 },
      { name: "Veteran", position: 5 },
      { name: "Moderator", position: 7 },
    ],
    botRole: { position: 6 },
  });
  config = {
    clientId: "1100000000000000001",
    clientSecret: "x",
    botToken: discord.botToken,
    guildId: guild.id,
    apiUrl: discord.apiUrl,
    authorizeUrl: discord.authorizeUrl,
    syncIntervalMs: 1000,
    sweepIntervalMs: 3_600_000,
  };
  client = createDiscordClient(config, { globalRequestsPerSecond: 5000 });
  await replaceRules(db.sql, [
    { roleId: role("Staker"), minStaked: 1 },
    { roleId: role("Whale"), minPoints: 500 },
    { roleId: role("Legend"), minLegendary: 1, minStaked: 2 },
    { roleId: role("Veteran"), minStakedDays: 30 },
  ]);
});

describe("the role sync", () => {
  it("grants what the standing earns, removes what it no longer earns, and never touches a role no rule names", async () => {
    const legendary = items.find((item) => item.rarity === "Legendary")!;
    const common = items.filter((item) => item.rarity !== "Legendary");
    const alice = await member("alice", [role("Moderator")]);
    const bob = await member("bob");
    await openStake(db.sql, legendary.id, alice.address, new Date(Date.now() - 31 * 86_400_000));
    await openStake(db.sql, common[0].id, alice.address, new Date());
    await addPoints(db.sql, { address: bob.address, points: 500, description: "t", actor: { kind: "cli" } });

    expect(await syncRoles(options())).toMatchObject({ added: 4, removed: 0, errors: 0 });
    expect(new Set(discord.memberRoles(guild.id, alice.userId))).toEqual(
      new Set([role("Moderator"), role("Staker"), role("Legend"), role("Veteran")]),
    );
    expect(discord.memberRoles(guild.id, bob.userId)).toEqual([role("Whale")]);
    // Steady state: nothing sent.
    discord.resetStats();
    expect(await syncRoles(options())).toMatchObject({ added: 0, removed: 0 });
    expect(discord.stats().requests).toBe(0);

    // The Legendary stake ends (a transfer), bob's points are cleared: the roles they earned go, Moderator stays.
    await db.sql`update stakes set ended_at = now(), end_reason = 'transferred' where item_id = ${legendary.id} and ended_at is null`;
    await clearPoints(db.sql, { address: bob.address, actor: { kind: "cli" } });
    expect(await syncRoles(options())).toMatchObject({ added: 0, removed: 3 });
    expect(new Set(discord.memberRoles(guild.id, alice.userId))).toEqual(new Set([role("Moderator"), role("Staker")]));
    expect(discord.memberRoles(guild.id, bob.userId)).toEqual([]);

    // Unlinked: the rules' roles go, the others stay.
    await db.sql`delete from discord_links where address = ${alice.address}`;
    expect(await syncRoles(options())).toMatchObject({ removed: 1 });
    expect(discord.memberRoles(guild.id, alice.userId)).toEqual([role("Moderator")]);
    expect(discord.roleChanges().every((change) => change.roleId !== role("Moderator"))).toBe(true);
    expect(discord.roleChanges().every((change) => change.reason === "Spooks holder roles")).toBe(true);
  });

  it("a member who left (404 10007) is skipped, and synced again by the sweep when they rejoin", async () => {
    const carol = await member("carol");
    await openStake(db.sql, items[1].id, carol.address, new Date());
    discord.removeMember(guild.id, carol.userId);
    expect(await syncRoles(options())).toMatchObject({ added: 0, absent: 1 });
    const [link] = await db.sql<{ absentSince: Date | null }[]>`select absent_since from discord_links where address = ${carol.address}`;
    expect(link.absentSince).not.toBeNull();
    discord.resetStats();
    await syncRoles(options());
    expect(discord.stats().requests).toBe(0); // skipped, not retried every tick

    discord.addMember(guild.id, carol.userId);
    const sweep = await sweepRoles(options(), "cli");
    expect(sweep).toMatchObject({ members: 1, absent: 0, added: 1, difference: 1 });
    expect(discord.memberRoles(guild.id, carol.userId)).toEqual([role("Staker")]);
    const [audit] = await db.sql<{ actor: string; details: { difference: number } }[]>`
      select actor, details from audit_log where action = 'discord.sweep' order by id desc limit 1`;
    expect(audit).toMatchObject({ actor: "system", details: { difference: 1 } });
  });

  it("a role that became unassignable (403 50013) is reported once and not tried for every member", async () => {
    await replaceRules(db.sql, [{ roleId: role("Moderator"), minStaked: 1 }]); // above the bot: as if moved after saving
    for (const index of [2, 3, 4]) {
      const someone = await member(`mod-${index}`);
      await openStake(db.sql, items[index].id, someone.address, new Date());
    }
    discord.resetStats();
    const result = await syncRoles(options());
    expect(result).toMatchObject({ added: 0 });
    expect(discord.stats().byStatus[403]).toBeLessThanOrEqual(1 + 7); // at most the calls already in flight
    const problems = await db.sql`select kind, role_id from discord_problems`;
    expect(problems).toEqual([{ kind: "role-unassignable", roleId: role("Moderator") }]);
    discord.resetStats();
    await syncRoles(options());
    expect(discord.stats().requests).toBe(0);
  });

  it("a refused bot token (401) stops the sync and tells the admin", async () => {
    const dave = await member("dave");
    await openStake(db.sql, items[5].id, dave.address, new Date());
    discord.resetBotToken();
    const result = await syncRoles(options());
    expect(result.stopped).toBe(true);
    const problems = await db.sql<{ kind: string; message: string }[]>`select kind, message from discord_problems`;
    expect(problems).toEqual([{ kind: "bad-token", message: expect.stringContaining("Discord refused the bot token (401)") }]);
    discord.resetStats();
    expect((await syncRoles(options())).stopped).toBe(true);
    expect(discord.stats().requests).toBe(0);
    await expect(sweepRoles(options(), "cli")).rejects.toThrow("bot token");
  });
});

describe("the reconciliation sweep", () => {
  it("2,000 linked members: fixes every difference, no request refused twice, then finds none", async () => {
    discord.setRateLimit("guild-member", { limit: 100, windowMs: 100 });
    discord.setRateLimit("member-roles", { limit: 100, windowMs: 100 });
    const users = Array.from({ length: 2000 }, (_, index) => {
      const user = discord.createUser({ username: `member${index}` });
      // Half hold Whale (given by hand, unearned: nobody has points).
      discord.addMember(guild.id, user.id, { roles: index % 2 === 0 ? [role("Whale")] : [] });
      return { userId: user.id, address: testAddress(`sweep-${run}-${index}`) };
    });
    await db.sql`
      insert into discord_links ${db.sql(users.map((user, index) => ({ address: user.address, discordUserId: user.userId, username: `member${index}`, linkedAt: new Date() })))}`;
    await replaceRules(db.sql, [
      { roleId: role("Staker"), minStaked: 1 },
      { roleId: role("Whale"), minPoints: 1 },
    ]);
    discord.resetStats();
    const sweep = await sweepRoles(options(), "scheduled");
    const stats = discord.stats();
    const minimum = 2000 + 1000; // one read each, Whale taken from the half that holds it unearned
    console.info(
      `discord sweep of 2,000: ${sweep.requests} requests (minimum ${minimum}), ${stats.rateLimited} answered 429, ${Math.round(sweep.finishedAt.getTime() - sweep.startedAt.getTime())} ms`,
    );
    expect(sweep).toMatchObject({ members: 2000, added: 0, removed: 1000, difference: 1000, errors: 0 });
    expect(Math.max(0, ...Object.values(stats.refusals))).toBeLessThanOrEqual(1);
    expect(stats.requests).toBe(sweep.requests);
    expect(sweep.requests - stats.rateLimited).toBe(minimum);
    const again = await sweepRoles(options(), "scheduled");
    expect(again).toMatchObject({ difference: 0, added: 0, removed: 0 });
  }, 180_000);
});
