/**
 * Discord holder roles in a real browser (issue 25): from the staking page's Discord section out to the
 * Discord double's authorize page and back, the wallet signing the link in one click on /discord/linked,
 * the role arriving (the indexer's role sync running beside) and shown in the section, the unlink; and
 * the admin's Discord tab: rules edited, previewed and saved, a refused role's reason, the linked members.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLogger } from "../../app/utils/logger.server.ts";
import { startDiscordDouble, type DiscordDouble, type GuildView } from "../../doubles/discord/discord-double.server.ts";
import { startRoleSync, type RoleSync } from "../../indexer/discord-sync.server.ts";
import { openStake } from "../../indexer/test-support.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
let discord: DiscordDouble;
let guild: GuildView;
let sync: RoleSync;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];

const role = (name: string) => guild.roles.find((candidate) => candidate.name === name)!.id;

async function open(privateKeyHex: string): Promise<Page> {
  const opening = await newPage(browser, world.url);
  opened.push(opening);
  opening.page.setDefaultTimeout(45_000);
  await injectMyDoge(opening.page, { privateKeyHex });
  return opening.page;
}

beforeAll(async () => {
  discord = await startDiscordDouble({});
  guild = discord.createGuild({
    roles: [
      { name: "Staker", position: 1 },
      { name: "Moderator", position: 3 },
    ],
    botRole: { position: 2 },
  });
  const ghost = discord.createUser({ username: "ghostly" });
  discord.addMember(guild.id, ghost.id);
  [world, browser] = await Promise.all([
    startE2eWorld({
      holderOwns: 2,
      perCollection: 4,
      env: {
        DISCORD_CLIENT_ID: "1100000000000000001",
        DISCORD_CLIENT_SECRET: "e2e-secret",
        DISCORD_BOT_TOKEN: discord.botToken,
        DISCORD_GUILD_ID: guild.id,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_AUTHORIZE_URL: discord.authorizeUrl,
      },
    }),
    launchBrowser(),
  ]);
  discord.registerApp({ clientId: "1100000000000000001", clientSecret: "e2e-secret", redirectUris: [`${world.url}/discord/callback`] });
  sync = startRoleSync({
    sql: world.db.sql,
    config: { ...world.server.context.config.discord!, syncIntervalMs: 300 },
    logger: createLogger("indexer", { logLevel: "error" }),
  });
}, 600_000);

afterAll(async () => {
  await sync?.stop();
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  await discord?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("Discord", () => {
  test("the admin's Discord tab: a role above the bot refused with the reason, rules previewed and saved", async () => {
    const page = await open(world.admin.privateKeyHex);
    await page.goto("/admin");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "Discord" }).click();
    const tab = page.getByTestId("discord-tab");
    // The role sync's start-up sweep may or may not have run yet: wait for the tab's own parts.
    await tab.getByRole("heading", { name: "Last sweep" }).waitFor();
    await tab.getByRole("button", { name: "Add rule" }).click();
    await tab.getByLabel("Role").selectOption({ label: "Moderator (the bot cannot assign it)" });
    await tab.getByLabel("Min. staked").fill("1");
    await tab.getByRole("button", { name: "Save rules" }).click();
    await tab
      .getByRole("alert")
      .getByText(/The bot cannot assign Moderator .* at or above the bot's highest role/)
      .waitFor();

    await tab.getByLabel("Role").selectOption({ label: "Staker" });
    await tab.getByRole("button", { name: "Preview" }).click();
    await tab
      .getByTestId("discord-preview")
      .getByText("If this draft is saved, against the saved rules: 0 members would gain a role, 0 members would lose one.")
      .waitFor();
    await tab.getByRole("button", { name: "Save rules" }).click();
    await tab.getByText("Rules saved: members' roles follow within a minute.").waitFor();
    await tab.getByLabel("Saved rules").getByText("Staker: 1+ staked").waitFor();
    const [audit] = await world.db.sql`select actor, actor_address from audit_log where action = 'discord.rules'`;
    expect(audit).toEqual({ actor: "web", actorAddress: world.admin.address });
  }, 180_000);

  test("link from the staking page through Discord's authorize page, sign in one click, the role shows; unlink", async () => {
    const page = await open(world.holder.privateKeyHex);
    await page.goto("/");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    const section = page.getByTestId("discord-section");
    await section.getByRole("link", { name: "Link Discord" }).click();
    // Discord's (the double's) authorize page: nobody is logged in, so it asks whom to authorize as.
    await page.getByRole("button", { name: "Authorize as ghostly" }).click();
    await page.waitForURL(/\/discord\/linked\?token=/);
    await page.getByText(`Link Discord user ghostly`, { exact: false }).first().waitFor();
    await page.getByRole("button", { name: "Sign and link" }).click();
    await page.getByTestId("discord-linked").getByText(`ghostly is linked to ${world.holder.address}`).waitFor();

    // Staking earns the role: the sync grants it, the section shows it.
    const [item] = await world.db.sql<
      { id: number }[]
    >`select i.id from items i join ownership o on o.item_id = i.id where o.owner_address = ${world.holder.address} limit 1`;
    await openStake(world.db.sql, item.id, world.holder.address, new Date());
    const ghostId = (await world.db.sql<{ discordUserId: string }[]>`select discord_user_id from discord_links`)[0].discordUserId;
    await expect.poll(() => discord.memberRoles(guild.id, ghostId), { timeout: 10_000 }).toEqual([role("Staker")]);
    await page.getByRole("link", { name: "Back to staking" }).click();
    // Which account is the owner's to see: the wallet signs to be shown it (issue 32, item 4).
    await section.getByText("Linked to a Discord account.").waitFor();
    await section.getByRole("button", { name: "Show account" }).click();
    await section.getByText("Linked to ghostly").waitFor();
    await section.getByLabel("Your Discord roles").getByText("Staker").waitFor();
    // The admin tab lists the member.
    const admin = await open(world.admin.privateKeyHex);
    await admin.goto("/admin");
    await admin.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await admin.getByRole("tab", { name: "Discord" }).click();
    await admin.getByTestId("discord-links").getByText(world.holder.address).waitFor();
    await admin.getByTestId("discord-links").getByText("Staker").waitFor();
    await section.getByRole("button", { name: "Unlink Discord" }).click();
    await section.getByRole("link", { name: "Link Discord" }).waitFor();
    await expect.poll(() => discord.memberRoles(guild.id, ghostId), { timeout: 10_000 }).toEqual([]);
  }, 180_000);

  test("a cancelled authorization ends on a page that says so", async () => {
    const page = await open(world.other.privateKeyHex);
    await page.goto("/");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByTestId("discord-section").getByRole("link", { name: "Link Discord" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.waitForURL(/\/discord\/linked\?error=denied/);
    await page.getByTestId("discord-link-failure").getByText("You cancelled the authorization in Discord: nothing was linked.").waitFor();
  }, 180_000);
});
