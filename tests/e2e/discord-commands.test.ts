/**
 * Slash commands in the admin's Discord tab (issue 37, item 5), in a real browser: the Interactions Endpoint
 * URL to set, a command sent as the linked member and as one with no linked wallet, and the answer drawn as
 * Discord draws it (ephemeral or not, the embed, the link button); the same command delivered by the Discord
 * double over the real signed path shows the member the same thing. axe finds nothing serious in the panel.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { formatPoints, formatPointsExact } from "../../app/domain/format.ts";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../../doubles/discord/discord-double.server.ts";
import { openStake } from "../../indexer/test-support.ts";
import { axeViolations } from "./support/axe.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const APP = "1100000000000000001";
let world: E2eWorld;
let browser: Browser;
let discord: DiscordDouble;
let guild: GuildView;
let ghost: string;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];

async function openAdmin(): Promise<Page> {
  const opening = await newPage(browser, world.url);
  opened.push(opening);
  opening.page.setDefaultTimeout(45_000);
  await injectMyDoge(opening.page, { privateKeyHex: world.admin.privateKeyHex });
  const { page } = opening;
  await page.goto("/admin");
  await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
  await page.getByRole("tab", { name: "Discord" }).click();
  return page;
}

beforeAll(async () => {
  discord = await startDiscordDouble({});
  guild = discord.createGuild({ roles: [{ name: "Holder", position: 1 }], botRole: { position: 2 } });
  ghost = discord.createUser({ username: "ghostly" }).id;
  discord.addMember(guild.id, ghost);
  const app = discord.registerApp({ clientId: APP, clientSecret: "e2e-secret", redirectUris: ["http://127.0.0.1/discord/callback"] });
  [world, browser] = await Promise.all([
    startE2eWorld({
      holderOwns: 3,
      perCollection: 4,
      env: {
        DISCORD_CLIENT_ID: APP,
        DISCORD_CLIENT_SECRET: "e2e-secret",
        DISCORD_BOT_TOKEN: discord.botToken,
        DISCORD_GUILD_ID: guild.id,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
        DISCORD_PUBLIC_KEY: app.publicKey,
        DISCORD_DEFER_AFTER_MS: "2500",
      },
    }),
    launchBrowser(),
  ]);
  const { syncCommands } = await import("../../app/utils/discord-commands.server.ts");
  await syncCommands(world.server.context.config.discord!);
  await discord.setInteractionsEndpoint(`${world.url}/api/discord/interactions`, APP);
  for (const item of world.holderItems.slice(0, 2)) {
    const [row] = await world.db.sql<{ id: number }[]>`select id from items where inscription_id = ${item.inscriptionId}`;
    await openStake(world.db.sql, row.id, world.holder.address, new Date(Date.now() - 2 * 3_600_000));
  }
  await world.addPoints(world.holder.address, 321.5);
  await world.db
    .sql`insert into discord_links (address, discord_user_id, username, linked_at) values (${world.holder.address}, ${ghost}, 'ghostly', now())`;
}, 600_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  await discord?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("the Discord tab's slash commands", () => {
  test("a command sent as the linked member, and as one with no wallet, drawn as holders see it", async () => {
    const page = await openAdmin();
    const panel = page.getByTestId("discord-commands");
    await panel.getByText(`${world.url}/api/discord/interactions`).waitFor();
    await panel.getByText("Discord's deliveries are answered.", { exact: false }).waitFor();

    await panel.getByLabel("Command").selectOption("points");
    await panel.getByLabel("Send as").selectOption({ label: `ghostly (${world.holder.address})` });
    await panel.getByRole("button", { name: "Send test command" }).click();
    const answer = panel.getByTestId("discord-command-answer");
    await answer.getByText("Your Spook Points").waitFor();
    const rewards = (await (await fetch(`${world.url}/api/rewards/${world.holder.address}`)).json()) as { unclaimedRewards: number };
    await answer.getByText(`${formatPoints(rewards.unclaimedRewards)}`, { exact: true }).waitFor();
    await answer.getByText(`Spook Points (exactly ${formatPointsExact(rewards.unclaimedRewards)})`, { exact: false }).waitFor();
    await answer.getByText("Only the member who asked sees this (ephemeral).", { exact: false }).waitFor();
    expect(await axeViolations(page, "the Discord tab's slash commands")).toEqual([]);

    // The same command through Discord's own path (signed, over HTTP) shows the member the same balance.
    const delivered = await discord.sendCommand({ clientId: APP, guildId: guild.id, userId: ghost, name: "points" });
    expect(delivered.outcome).toBe("answered");
    expect((delivered.message!.embeds[0] as { description: string }).description).toBe(
      `**${formatPoints(rewards.unclaimedRewards)}** Spook Points (exactly ${formatPointsExact(rewards.unclaimedRewards)})`,
    );

    await panel.getByLabel("Command").selectOption("verify");
    await panel.getByLabel("giveaway").fill("999");
    await panel.getByRole("button", { name: "Send test command" }).click();
    await answer.getByText("No such giveaway").waitFor();
    await answer.getByText("There is no giveaway #999.", { exact: false }).waitFor();

    await panel.getByLabel("Command").selectOption("stake");
    await panel.getByLabel("Send as").selectOption({ label: "A member with no linked wallet" });
    await panel.getByRole("button", { name: "Send test command" }).click();
    await answer.getByText("Link your wallet first").waitFor();
    expect(await answer.getByRole("link", { name: /Link Discord/ }).getAttribute("href")).toBe(`${world.url}/discord/link`);

    await panel.getByLabel("Command").selectOption("giveaways");
    await panel.getByRole("button", { name: "Send test command" }).click();
    await answer.getByText("Everyone in the channel sees this.", { exact: false }).waitFor();
    await answer.getByText("No giveaway is open right now.").waitFor();
  }, 180_000);
});
