/**
 * The rewards page in a real browser: disconnected state, points banner, giveaway cards (open, too
 * expensive, ended with a winner, inactive with a broken image), entering a giveaway with a signature and
 * seeing the balance drop, 'Not Enough Points', My Entries with a win to share, and the empty texts.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enterGiveaway, setGiveawayActive } from "../../db/queries/giveaways.server.ts";
import {
  closeDialogWithEscape,
  injectMyDoge,
  launchBrowser,
  newPage,
  screenshot,
  waitForToast,
  type MyDogeHandle,
  type PageProblems,
} from "./support/browser.ts";
import { spookySvg, startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

let world: E2eWorld;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let mydoge: MyDogeHandle;
const ids = { hoodie: 0, trophy: 0, pumpkin: 0, crypt: 0 };

const giveawayCard = (id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`);

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  const { holder } = world;
  await world.addPoints(holder.address, 1000);
  const hoodie = await world.createGiveaway({
    title: "Haunted Hoodie",
    description: "A hoodie that glows in the dark. Ships worldwide.",
    pointsCost: 100,
    endDate: new Date(Date.now() + 3 * DAY),
    imageUrl: world.upload("hoodie.svg", spookySvg("Haunted Hoodie")),
  });
  const trophy = await world.createGiveaway({
    title: "Golden Ghost Trophy",
    description: "One solid gold ghost for the most devoted Spook.",
    pointsCost: 5000,
    endDate: new Date(Date.now() + 5 * HOUR),
    imageUrl: world.upload("trophy.svg", spookySvg("Golden Ghost", 40)),
  });
  const pumpkin = await world.createGiveaway({
    title: "Pumpkin Patch Pass",
    description: "A season pass to the pumpkin patch.",
    pointsCost: 50,
    endDate: new Date(Date.now() + 2 * DAY),
    imageUrl: world.upload("pumpkin.svg", spookySvg("Pumpkin Pass", 20)),
  });
  const crypt = await world.createGiveaway({
    title: "Crypt Key",
    description: "Opens the crypt. The image of this one is broken on purpose.",
    pointsCost: 10,
    endDate: new Date(Date.now() + DAY),
    imageUrl: "/uploads/does-not-exist.png",
  });
  Object.assign(ids, { hoodie: hoodie.id, trophy: trophy.id, pumpkin: pumpkin.id, crypt: crypt.id });
  // The holder entered the pumpkin giveaway (2 × 50), won it, and it has ended since.
  await enterGiveaway(world.db.sql, { giveawayId: pumpkin.id, address: holder.address, tickets: 2 });
  await world.draw(pumpkin.id);
  await world.db.sql`update giveaways set end_date = ${new Date(Date.now() - HOUR)} where id = ${pumpkin.id}`;
  await setGiveawayActive(world.db.sql, crypt.id, false, { kind: "system" });

  ({ context, page, problems } = await newPage(browser, world.url));
  mydoge = await injectMyDoge(page, { privateKeyHex: holder.privateKeyHex });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await world?.close();
  expect(problems?.errors ?? []).toEqual([]);
});

describe("rewards page", () => {
  test("disconnected: 'Spook Rewards', a 'Connect Wallet' alert and a button that connects", async () => {
    await page.goto("/rewards");
    await page.getByRole("heading", { name: "Spook Rewards" }).waitFor();
    await page.getByRole("status").filter({ hasText: "Connect Wallet" }).waitFor();
    await screenshot(page, "rewards-disconnected");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByTestId("banner-points").waitFor();
  });

  test("connected: points banner, tabs, and every kind of giveaway card", async () => {
    await page.getByTestId("banner-points").getByText("900").waitFor();
    for (const label of ["Daily Rate", "Staked NFTs", "Reward Tier"]) await page.getByText(label, { exact: true }).waitFor();
    await page.getByText("0 / 4").waitFor();
    await page.getByText("Tier 1", { exact: true }).waitFor();

    // Active Giveaways: open ones only (newest first); the ended ones stand under "Recent winners" (issue 27, item 8).
    await giveawayCard(ids.hoodie).waitFor();
    const recentWinners = page.getByTestId("recent-winners").getByTestId("giveaway-card");
    expect((await page.getByTestId("giveaway-card").count()) - (await recentWinners.count())).toBe(2);
    await giveawayCard(ids.trophy)
      .getByTestId("time-remaining")
      .getByText(/^\d+h \d+m$/)
      .waitFor();
    await giveawayCard(ids.hoodie)
      .getByTestId("time-remaining")
      .getByText(/^\dd \d+h$/)
      .waitFor();
    await giveawayCard(ids.trophy).getByText("5,000 SPOOK").waitFor();
    await giveawayCard(ids.hoodie).getByText("A hoodie that glows in the dark. Ships worldwide.").waitFor();
    await giveawayCard(ids.hoodie)
      .getByText(/^Ends [A-Z][a-z]{2} \d{1,2}, \d{4}/)
      .waitFor();
    expect(await giveawayCard(ids.hoodie).getByTestId("draw-commitment").textContent()).toMatch(/^[0-9a-f]{64}$/);

    // All Giveaways: ended (with its winner and revealed seed) and inactive too.
    await page.getByRole("tab", { name: "All Giveaways" }).click();
    expect(await page.getByTestId("giveaway-card").count()).toBe(4);
    const pumpkin = giveawayCard(ids.pumpkin);
    await pumpkin.getByText("Ended", { exact: true }).first().waitFor();
    await pumpkin.getByText(`${world.holder.address.slice(0, 6)}...${world.holder.address.slice(-4)}`).waitFor();
    expect(await pumpkin.getByTestId("draw-seed").textContent()).toMatch(/^[0-9a-f]{64}$/);
    expect(await pumpkin.getByRole("button", { name: "Add More Tickets" }).isDisabled()).toBe(true);
    await pumpkin.getByTestId("your-tickets").getByText("2").waitFor();
    const crypt = giveawayCard(ids.crypt);
    await crypt.getByText("Inactive", { exact: true }).waitFor();
    await crypt.getByText("Image Not Available").waitFor();
    expect(await crypt.getByRole("button", { name: "Enter Giveaway" }).isDisabled()).toBe(true);

    // My Entries: the win, with a share link.
    await page.getByTestId("entries-count").getByText("1").waitFor();
    const entry = page.getByTestId("entry-card").first();
    await entry.getByTestId("entry-status").getByText("Won!").waitFor();
    await entry.getByText("Winner!").waitFor();
    const share = await entry.getByRole("link", { name: "Share Win" }).getAttribute("href");
    expect(share).toMatch(/^https:\/\/x\.com\/intent\/tweet\?text=/);
    expect(decodeURIComponent(share!.split("text=")[1])).toContain("Pumpkin Patch Pass");
    await screenshot(page, "rewards");
    await screenshot(page, "rewards-full", { fullPage: true });

    // The image enlarges.
    await giveawayCard(ids.hoodie).getByRole("button", { name: "Enlarge image of Haunted Hoodie" }).click();
    await page.getByRole("dialog", { name: "Haunted Hoodie" }).getByRole("img", { name: "Haunted Hoodie" }).waitFor();
    // "Wallet Connected" (5 s) may still be up on a fast machine: the toast on top takes the first Escape.
    await closeDialogWithEscape(page);
  });

  test("enter a giveaway: the wallet signs the entry, the balance drops, the tickets show", async () => {
    await page.getByRole("tab", { name: "Active Giveaways" }).click();
    await giveawayCard(ids.hoodie).getByRole("button", { name: "Enter Giveaway" }).click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    await dialog.getByTestId("enter-balance").getByText("900").waitFor();
    await dialog.getByRole("button", { name: "One ticket more" }).click();
    await dialog.getByTestId("enter-total").getByText("200 SPOOK").waitFor();
    await dialog.getByTestId("enter-remaining").getByText("700 SPOOK").waitFor();
    expect(await dialog.getByLabel("Number of tickets").inputValue()).toBe("2");
    await screenshot(page, "rewards-enter-dialog");

    await dialog.getByRole("button", { name: "Enter Giveaway" }).click();
    await waitForToast(page, "Entry Successful!", "You've entered the giveaway with 2 tickets.");
    await dialog.waitFor({ state: "detached" });
    expect(mydoge.signed.at(-1)).toMatch(new RegExp(`^Entering giveaway #${ids.hoodie} with 2 ticket\\(s\\)\\. Timestamp: `));

    await page.getByTestId("banner-points").getByText("700").waitFor();
    await page.getByTestId("points-balance").first().getByText("700").waitFor();
    await giveawayCard(ids.hoodie).getByTestId("your-tickets").getByText("2").waitFor();
    await giveawayCard(ids.hoodie).getByRole("button", { name: "Add More Tickets" }).waitFor();
    await page.getByTestId("entries-count").getByText("2").waitFor();
    const [row] = await world.db.sql<{ tickets: number }[]>`
      select sum(tickets)::int as tickets from giveaway_entries where giveaway_id = ${ids.hoodie} and address = ${world.holder.address}`;
    expect(row.tickets).toBe(2);
  });

  test("'Not Enough Points': the alert, a disabled plus, and a refused entry", async () => {
    await giveawayCard(ids.trophy).getByRole("button", { name: "Enter Giveaway" }).click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    const alert = dialog.getByRole("alert");
    await alert.getByText("Not Enough Points").waitFor();
    await alert.getByText("You need 5,000 points for 1 ticket, but you only have 700.").waitFor();
    expect(await dialog.getByRole("button", { name: "One ticket more" }).isDisabled()).toBe(true);
    await screenshot(page, "rewards-not-enough-points");
    // Issue 27, item 14: with "Not Enough Points" on screen, "Enter Giveaway" is disabled (nothing to sign).
    expect(await dialog.getByRole("button", { name: "Enter Giveaway" }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // Typed ticket counts: more than affordable, then not a number (counts as 1).
    await giveawayCard(ids.hoodie).getByRole("button", { name: "Add More Tickets" }).click();
    const input = dialog.getByLabel("Number of tickets");
    await input.fill("8");
    await alert.getByText("You need 800 points for 8 tickets, but you only have 700.").waitFor();
    expect(await dialog.getByRole("button", { name: "Enter Giveaway" }).isDisabled()).toBe(true);
    await input.fill("");
    await dialog.getByTestId("enter-total").getByText("100 SPOOK").waitFor();
    expect(await alert.count()).toBe(0);
    expect(await dialog.getByRole("button", { name: "Enter Giveaway" }).isEnabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    const [row] = await world.db.sql<
      { count: number }[]
    >`select count(*)::int as count from giveaway_entries where giveaway_id = ${ids.trophy}`;
    expect(row.count).toBe(0);
  });

  test("empty texts", async () => {
    const isList = (url: URL) => url.pathname === "/api/giveaways" || url.pathname.startsWith("/api/giveaways/entries/user/");
    await page.route(isList, (route) => route.fulfill({ json: [] }));
    await page.reload();
    await page.getByText("No active giveaways at the moment. Check back soon!").waitFor();
    await page.getByText("No Entries Yet").waitFor();
    await page.getByRole("tab", { name: "All Giveaways" }).click();
    await page.getByText("No giveaways found.").waitFor();
    await page.unroute(isList);
  });
});
