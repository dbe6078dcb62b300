/**
 * Demo mode's Discord (issue 25): when no DISCORD_* is set, `npm start` without ORD_URL runs the Discord
 * double (doubles/discord) in-process, so a newcomer can click through linking: the authorize page offers
 * three demo users, the demo server has Holder, Staker and Legendary Staker roles, and default rules give
 * them. Everything lives in memory; the links stay in the database across restarts, the double's roles not.
 * Slash commands (issue 37) are on: the double's app has its own Ed25519 key (DISCORD_PUBLIC_KEY), the site
 * registers its commands there at start, and `connectInteractions` sets the site's Interactions Endpoint URL
 * once it listens, so the double delivers commands to the site signed as Discord does.
 */
import fs from "node:fs";
import path from "node:path";
import type { DiscordConfig } from "../app/utils/env.server.ts";
import { processIsAlive } from "../app/utils/process-alive.server.ts";
import type { Sql } from "../db/client.server.ts";
import { listRules, replaceRules } from "../db/queries/discord.server.ts";

/** A post the demo's Discord channel received (the double keeps them in memory), as the admin's tab lists it. */
export type ChannelPost = { at: Date; title: string; description: string; url: string | null; event: string };

export type DemoDiscord = {
  config: DiscordConfig;
  url: string;
  /** The announcements channel's webhook: DISCORD_WEBHOOK_URL in demo mode when none is set (issue 33, item 8). */
  channelWebhookUrl: string;
  /** What that channel received, newest first. */
  channelPosts(): ChannelPost[];
  /** Sets the site's Interactions Endpoint URL (checked by the double with a PING, as Discord checks it). */
  connectInteractions(endpointUrl: string): Promise<void>;
  close(): Promise<void>;
};

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
  // The channel the public events are announced in, as DISCORD_WEBHOOK_URL would name one: every post is kept.
  const channel = discord.createWebhook({ name: "Spooks announcements" });
  const channelPosts = (): ChannelPost[] =>
    discord
      .messages(channel.id)
      .map((posted) => {
        type Embed = { title?: string; description?: string; url?: string; footer?: { text?: string } };
        const embed: Embed = ((posted.body.embeds as Embed[] | undefined) ?? [])[0] ?? {};
        const footer = embed.footer?.text ?? "";
        const content = typeof posted.body.content === "string" ? posted.body.content : "";
        return {
          at: new Date(posted.at),
          title: embed.title ?? content,
          description: embed.description ?? "",
          url: typeof embed.url === "string" ? embed.url : null,
          event: footer.replace(/^Spooks · /, ""),
        };
      })
      .reverse();
  return {
    channelWebhookUrl: channel.url,
    channelPosts,
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
      publicKey: app.publicKey,
    },
    connectInteractions: (endpointUrl) => discord.setInteractionsEndpoint(endpointUrl, app.clientId),
    close: () => discord.close(),
  };
}

/** Where a demo `npm start` publishes its Discord double's settings, so `spooks-admin discord …` on the same DATA_DIR uses it. */
export function demoDiscordFile(dataDir: string): string {
  return path.join(dataDir, "demo-discord.json");
}

/**
 * Publishes the running demo's Discord settings (owner-only, like the demo wallets' keys; the double's bot token
 * is its own, good for nothing else); the returned cleanup removes the file at shutdown.
 */
export function publishDemoDiscord(dataDir: string, config: DiscordConfig): () => Promise<void> {
  const file = demoDiscordFile(dataDir);
  fs.writeFileSync(file, JSON.stringify({ config, pid: process.pid }), { mode: 0o600 });
  return async () => fs.rmSync(file, { force: true });
}

/** The Discord settings a running demo published in `dataDir`, or undefined when none runs (as the demo's chain: issue 33, item 8). */
export function readDemoDiscord(dataDir: string): DiscordConfig | undefined {
  let published: { config?: DiscordConfig; pid?: unknown };
  try {
    published = JSON.parse(fs.readFileSync(demoDiscordFile(dataDir), "utf8")) as typeof published;
  } catch {
    return undefined;
  }
  if (!published.config || typeof published.pid !== "number" || !processIsAlive(published.pid)) return undefined;
  return published.config;
}
