/**
 * Open pages stay true (issue 27, rule 3) and the giveaways that explain themselves (items 8, 9 and 14's
 * giveaway parts), in a real browser against the real app: pages are left open while the browser's clock
 * (Playwright's `page.clock`) and the server's state (the indexer's passes, the draw) move on, and each view
 * must follow without a reload:
 * - Rewards: a giveaway whose end passes flips to ended at its time (its "Add More Tickets" and an open enter
 *   dialog disabled with the reason) and moves to "Recent winners"; a giveaway created meanwhile appears on
 *   focus; a closed one shows "Drawing at block {H}" with its progress, then its winners; the holder's entry
 *   turns "Won!" and offers the claim, signed with MyDoge; "Verify this draw" is a visible link; "Enter
 *   Giveaway" is disabled with "Not Enough Points".
 * - Verify this draw: a draw not made yet turns verified once drawn.
 * - Governance: a proposal flips upcoming → active → completed at its times, in its tab counts and in an
 *   open dialog; a proposal created meanwhile appears.
 * - Admin: "Drawn" (not "Active"), every winner, each claim with its contact and who has not claimed.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enterGiveaway, type Giveaway } from "../../db/queries/giveaways.server.ts";
import { createProposal } from "../../db/queries/proposals.server.ts";
import { selectWinners } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { injectMyDoge, launchBrowser, newPage, waitForToast, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, testWallet, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
const third = testWallet("live-third");
const CONTACT = "moonlit-winner@spooks.example";
let closing: Giveaway;
let moonlit: Giveaway;
let old: Giveaway;
let costly: Giveaway;
let drawBlock = 0;

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  const day = Date.now() + 86_400_000;
  for (const wallet of [world.holder, world.other, third]) await world.addPoints(wallet.address, 1000);
  // Drawn before the page opens: two winners (neither the holder), none claimed.
  old = await world.createGiveaway({ title: "Old Candle", description: "Drawn", pointsCost: 10, endDate: new Date(day), winners: 2 });
  await enterGiveaway(world.db.sql, { giveawayId: old.id, address: world.other.address, tickets: 1 });
  await enterGiveaway(world.db.sql, { giveawayId: old.id, address: third.address, tickets: 1 });
  expect(await world.draw(old.id)).toHaveLength(2);
  costly = await world.createGiveaway({ title: "Costly Crown", description: "Dear", pointsCost: 5000, endDate: new Date(day), winners: 3 });
  // Drawn while the page is open: only the holder enters, so the holder wins.
  moonlit = await world.createGiveaway({ title: "Moonlit Prize", description: "Soon drawn", pointsCost: 10, endDate: new Date(day) });
  await enterGiveaway(world.db.sql, { giveawayId: moonlit.id, address: world.holder.address, tickets: 2 });
  world.server.context.config.ordUrl = world.chain.url;
}, 240_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

/** A page whose clock Playwright drives (it runs on by itself, and jumps with `fastForward`). */
async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  await page.clock.install({ time: new Date() });
  return page;
}

const card = (page: Page, id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`).first();

/** The browser's clock jumps `ms` ahead: timers due meanwhile (the 30 s refetch, a status boundary) fire. */
const jump = (page: Page, ms: number) => page.clock.fastForward(ms);

describe("Rewards left open", () => {
  let page: Page;
  let mydoge: Awaited<ReturnType<typeof injectMyDoge>>;

  test("the end of a giveaway flips the card and an open enter dialog at its time, disabled with the reason", async () => {
    // Ends 90 s from now: the page's clock gets there by a jump, not by waiting.
    closing = await world.createGiveaway({
      title: "Closing Lantern",
      description: "Ends soon",
      pointsCost: 10,
      endDate: new Date(Date.now() + 90_000),
    });
    await enterGiveaway(world.db.sql, { giveawayId: closing.id, address: world.holder.address, tickets: 1 });
    page = await open();
    mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto("/rewards");
    const lantern = card(page, closing.id);
    const addMore = lantern.getByRole("button", { name: "Add More Tickets" });
    await addMore.waitFor();
    expect(await addMore.isEnabled()).toBe(true);
    // Cards show the number of winners; "Verify this draw" is a visible, underlined link (item 14).
    await card(page, costly.id).getByTestId("winners-count").getByText("3 winners").waitFor();
    await lantern.getByTestId("winners-count").getByText("1 winner").waitFor();
    const verify = lantern.getByRole("link", { name: /^Verify this draw\s?: Closing Lantern$/ });
    await verify.waitFor(); // visible without opening "Provably fair draw"
    expect(await verify.evaluate((link) => getComputedStyle(link).textDecorationLine)).toBe("underline");
    expect(await verify.getAttribute("href")).toBe(`/giveaways/${closing.id}/verify`);

    // The enter dialog is open when the end passes: it says entries closed and enters nothing.
    await addMore.click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    const enter = dialog.getByRole("button", { name: "Enter Giveaway" });
    await enter.waitFor();
    expect(await enter.isEnabled()).toBe(true);
    await jump(page, 95_000);
    await dialog.getByTestId("enter-closed").getByText("Entries are closed: this giveaway has ended.").waitFor();
    expect(await enter.isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });

    await lantern.getByTestId("time-remaining").getByText("Ended").waitFor();
    expect(await addMore.isDisabled()).toBe(true);
    await lantern.getByTestId("entry-closed-reason").getByText("Entries are closed: this giveaway has ended.").waitFor();
    // Ended giveaways stay on the default tab, under "Recent winners"; the drawn one shows its two winners.
    const recent = page.getByTestId("recent-winners");
    await recent.locator(`[data-giveaway-id="${closing.id}"]`).waitFor();
    const oldCard = recent.locator(`[data-giveaway-id="${old.id}"]`);
    await oldCard.getByText("Winners:").waitFor();
    expect((await oldCard.getByTestId("winners").textContent())?.split(", ")).toHaveLength(2);
    await oldCard.getByTestId("winners-count").getByText("2 winners").waitFor();
    const activeTab = page.getByRole("tabpanel", { name: "Active Giveaways" });
    expect(await activeTab.locator(`[data-giveaway-id="${closing.id}"]`).count()).toBe(1); // in Recent winners only
    expect(await page.getByRole("tabpanel").locator(`[data-testid="recent-winners"] [data-giveaway-id="${moonlit.id}"]`).count()).toBe(0);
  }, 180_000);

  test("'Enter Giveaway' is disabled while 'Not Enough Points' shows", async () => {
    await card(page, costly.id).getByRole("button", { name: "Enter Giveaway" }).click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    await dialog.getByRole("alert").getByText("Not Enough Points").waitFor();
    expect(await dialog.getByRole("button", { name: "Enter Giveaway" }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
  }, 180_000);

  test("a giveaway created meanwhile appears when the window regains focus", async () => {
    const surprise = await world.createGiveaway({
      title: "Surprise Pumpkin",
      description: "New",
      pointsCost: 10,
      endDate: new Date(Date.now() + 86_400_000),
    });
    await jump(page, 11_000); // older than the 10 s the list counts as fresh, before the next 30 s poll
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await card(page, surprise.id).getByRole("heading", { name: "Surprise Pumpkin" }).waitFor();
  }, 180_000);

  test("closed for its draw: 'Drawing at block {H}' with its progress, then the winners, the holder's win and the claim", async () => {
    const verifyPage = await open();
    await verifyPage.goto(`/giveaways/${moonlit.id}/verify`);
    await verifyPage.getByTestId("draw-verdict").waitFor();
    expect(await verifyPage.getByTestId("draw-verdict").getAttribute("data-outcome")).not.toBe("verified");

    const client = createOrdClient({ baseUrl: world.chain.url, retries: 0 });
    const selected = await selectWinners(world.db.sql, client, moonlit.id, { kind: "system" }).finally(() => client.close());
    drawBlock = (selected as { blockHeight: number }).blockHeight;
    world.chain.mine(5);
    await world.sync(); // the indexer's pass reads the block count the progress counts from
    const moon = card(page, moonlit.id);
    const button = moon.getByRole("button", { name: "Add More Tickets" });
    expect(await button.isEnabled()).toBe(true);
    await jump(page, 31_000);
    await moon.getByTestId("drawing-at").getByText(`Drawing at block ${drawBlock}`).waitFor();
    await moon.getByTestId("draw-progress").getByText("8 blocks to go, about 8 min").waitFor();
    expect(await button.isDisabled()).toBe(true);
    await moon.getByTestId("entry-closed-reason").getByText(`Entries are closed: drawing at block ${drawBlock}.`).waitFor();

    world.chain.mine(3);
    await world.sync();
    await jump(page, 31_000);
    await moon.getByTestId("draw-progress").getByText("5 blocks to go, about 5 min").waitFor();

    world.chain.mine(5);
    await world.sync();
    await world.drawPass();
    await jump(page, 31_000);
    const recentMoon = page.getByTestId("recent-winners").locator(`[data-giveaway-id="${moonlit.id}"]`);
    await recentMoon.getByTestId("winners").getByText(world.holder.address.slice(0, 6)).waitFor();
    expect(await moon.getByTestId("drawing-at").count()).toBe(0);
    const won = page.getByTestId("entry-card").filter({ hasText: "Moonlit Prize" });
    await won.getByTestId("entry-status").getByText("Won!").waitFor();

    // The verify view, left open too, turns verified once drawn.
    await jump(verifyPage, 31_000);
    await expect.poll(() => verifyPage.getByTestId("draw-verdict").getAttribute("data-outcome"), { timeout: 15_000 }).toBe("verified");

    // The claim, signed with MyDoge.
    await won.getByRole("button", { name: "Claim Prize" }).click();
    const dialog = page.getByRole("dialog", { name: "Claim your prize" });
    await dialog.getByLabel("How can the admin reach you?").fill(`  ${CONTACT} `);
    await dialog.getByRole("button", { name: "Sign and Claim" }).click();
    await waitForToast(page, "Prize Claimed");
    await dialog.waitFor({ state: "detached" });
    await won.getByTestId("prize-claimed").waitFor();
    expect(mydoge.signed.at(-1)).toMatch(
      new RegExp(
        `^Claim Moonlit Prize \\(#${moonlit.id}\\) for ${world.holder.address}\\. Contact: ${CONTACT.replace(/\./g, "\\.")}\\. Timestamp: `,
      ),
    );
    const rows = await world.db.sql<{ address: string; contact: string }[]>`
      select address, contact from giveaway_claims where giveaway_id = ${moonlit.id}`;
    expect(rows).toEqual([{ address: world.holder.address, contact: CONTACT }]);
    expect(await page.content()).not.toContain(CONTACT);
  }, 180_000);
});

describe("Governance left open", () => {
  test("a proposal flips upcoming → active → completed at its times, in the tabs and in its open dialog; new ones appear", async () => {
    const start = Date.now() + 60_000;
    await createProposal(
      world.db.sql,
      {
        title: "Light the lanterns?",
        description: "At dusk",
        startDate: new Date(start),
        endDate: new Date(start + 120_000),
        voteType: "yes_no",
        options: [],
        createdBy: "e2e",
      },
      { kind: "system" },
    );
    const page = await open();
    await page.goto("/governance");
    await page.getByRole("tab", { name: "Upcoming (1)" }).click();
    await page.getByRole("article", { name: "Light the lanterns?" }).getByRole("link", { name: "View Details" }).click();
    const dialog = page.getByRole("dialog", { name: "Light the lanterns?" });
    await dialog.getByText("Voting hasn't started yet").waitFor();

    await jump(page, 61_000);
    await dialog.locator('[data-status="active"]').waitFor();
    await dialog.getByText("Connect wallet to vote").waitFor();
    expect(await dialog.getByText("Voting hasn't started yet").count()).toBe(0);
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("tab", { name: "Active (1)" }).waitFor();
    await page.getByRole("tab", { name: "Upcoming (0)" }).waitFor();

    await page.getByRole("tab", { name: "Active (1)" }).click();
    await page.getByRole("article", { name: "Light the lanterns?" }).getByRole("link", { name: "View Details" }).click();
    await dialog.getByText("Connect wallet to vote").waitFor();
    await jump(page, 121_000);
    await dialog.getByText("Voting has ended").waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("tab", { name: "Completed (1)" }).waitFor();

    // A proposal created meanwhile appears with the next refresh, without a reload.
    await createProposal(
      world.db.sql,
      {
        title: "Carve more pumpkins?",
        description: "Soon",
        startDate: new Date(Date.now() + 86_400_000),
        endDate: new Date(Date.now() + 2 * 86_400_000),
        voteType: "yes_no",
        options: [],
        createdBy: "e2e",
      },
      { kind: "system" },
    );
    await jump(page, 31_000);
    await page.getByRole("tab", { name: "Upcoming (1)" }).waitFor();
  }, 180_000);
});

describe("Admin: drawn giveaways and their claims", () => {
  test("'Drawn' (not 'Active'), every winner, each claim with its contact and who has not claimed", async () => {
    const { context, page, problems } = await newPage(browser, world.url);
    page.setDefaultTimeout(15_000);
    opened.push({ context, problems });
    await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await page.goto("/admin");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "Giveaways" }).click();
    const row = (title: string) => page.getByTestId("admin-giveaway").filter({ has: page.getByRole("heading", { name: title }) });

    await row("Old Candle").getByTestId("giveaway-status").getByText("Drawn", { exact: true }).waitFor();
    expect(await row("Old Candle").getByTestId("winner-address").count()).toBe(2);
    const oldClaims = row("Old Candle").getByTestId("winner-claim");
    await oldClaims.first().waitFor();
    expect(await oldClaims.count()).toBe(2);
    expect(await row("Old Candle").locator('[data-testid="winner-claim"][data-claimed="false"]').getByText("Not claimed").count()).toBe(2);

    await row("Moonlit Prize").getByTestId("giveaway-status").getByText("Drawn", { exact: true }).waitFor();
    const claimed = row("Moonlit Prize").locator('[data-testid="winner-claim"][data-claimed="true"]');
    await claimed.getByText(CONTACT).waitFor();
    await claimed.getByText(world.holder.address).waitFor();
    await row("Costly Crown").getByTestId("giveaway-status").getByText("Active", { exact: true }).waitFor();
  }, 180_000);
});
