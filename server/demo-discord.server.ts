/**
 * Demo mode's Discord (issue 25): when no DISCORD_* is set, `npm start` without ORD_URL runs the Discord
 * double (doubles/discord) in-process, so a newcomer can click through linking: the authorize page offers
 * three demo users, the demo server has Holder, Staker and Legendary Staker roles, and default rules give
 * them. Everything lives in memory; the links stay in the database across restarts, the double's roles not.
 */
import type { DiscordConfig } from "../app/utils/env.server.ts";
import type { Sql } from "../db/client.server.ts";
import { listRules, replaceRules } from "../db/queries/discord.server.ts";

export type DemoDiscord = { config: DiscordConfig; url: string; close(): Promise<void> };

const DEMO_USERS = ["ghostly", "pumpkin", "wraith"];
/** Fixed ids, so links and rules made in one run still name the same users and roles after a restart. */
const DEMO_GUILD = "1300000000000000001";
const DEMO_ROLES = [
  { id: "1300000000000000002", name: "Holder", position: 1 },
  { id: "1300000000000000003", name: "Staker", position: 2 },
  { id: "1300000000000000004", name: "Legendary Staker", position: 3 },
  { id: "1300000000000000005", name: "Moderator", position: 5 },
];
const demoUserId = (index: number) => `13000000000000001${index}0`;

export async function startDemoDiscord(sql: Sql, siteOrigins: string[]): Promise<DemoDiscord> {
  const { startDiscordDouble } = await import("../doubles/discord/discord-double.server.ts");
  const discord = await startDiscordDouble({});
  const app = discord.registerApp({ redirectUris: siteOrigins.map((origin) => `${origin}/discord/callback`) });
  const guild = discord.createGuild({
    id: DEMO_GUILD,
    name: "Spooks (demo)",
    roles: DEMO_ROLES,
    botRole: { position: 4 },
  });
  DEMO_USERS.forEach((username, index) =>
    discord.addMember(guild.id, discord.createUser({ id: demoUserId(index), username, globalName: username }).id),
  );
  const role = (name: string) => DEMO_ROLES.find((candidate) => candidate.name === name)!.id;
  // The double forgets the roles it gave when it stops: what the sync granted is granted afresh.
  await sql`delete from discord_role_grants`;
  if ((await listRules(sql)).length === 0) {
    await replaceRules(sql, [
      { roleId: role("Holder"), minStaked: 1 },
      { roleId: role("Staker"), minStaked: 3 },
      { roleId: role("Legendary Staker"), minLegendary: 1 },
    ]);
  }
  return {
    url: discord.url,
    config: {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      botToken: discord.botToken,
      guildId: guild.id,
      apiUrl: discord.apiUrl,
      authorizeUrl: discord.authorizeUrl,
      syncIntervalMs: 5_000,
      sweepIntervalMs: 6 * 3_600_000,
    },
    close: () => discord.close(),
  };
}
