/**
 * Accessibility (issue 12 item 5) in a real browser against the real app and database:
 * - axe-core (WCAG 2.0/2.1 A and AA, which includes text contrast ≥ 4.5:1) over every page and every dialog
 *   that opens, without an extension, with MyDoge not connected, connected as a holder, and as the admin,
 *   at 1280×800 and 390×844: no serious or critical violation (the failure lists rule, target and summary);
 * - the stake flow and the vote flow done with the keyboard only: Tab to the control, Enter, focus trapped
 *   in the dialog, focus back on the control that opened it, a visible focus indicator on every stop;
 * - screenshots of every page at both sizes under test-results/screenshots (a11y-*.png).
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enterGiveaway, setGiveawayActive } from "../../db/queries/giveaways.server.ts";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import {
  DESKTOP,
  PHONE,
  SCREENSHOT_DIR,
  injectMyDoge,
  launchBrowser,
  newPage,
  closeDialogWithEscape,
  waitForToast,
  type MyDogeHandle,
  type PageProblems,
} from "./support/browser.ts";
import { axeViolations, settle } from "./support/axe.ts";
import { spookySvg, startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { atTime } from "./support/clock.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PAGES = [
  { path: "/", name: "stake", heading: /^(Your Spooks|Stake Spooks, Earn Rewards|MyDoge Wallet Required)$/ },
  { path: "/rewards", name: "rewards", heading: /^Spook Rewards$/ },
  { path: "/governance", name: "governance", heading: /^Spook Governance$/ },
  { path: "/admin", name: "admin", heading: /^Admin Panel$/ },
  { path: "/no-such-page", name: "not-found", heading: /^404 Page Not Found$/ },
  { path: "/rewards/history", name: "points-history", heading: /^Points History$/ },
] as const;
const NOT_FOUND = PAGES[4];
const POINTS_HISTORY = PAGES[5];

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let active: Proposal;
let completed: Proposal;
let upcoming: Proposal;
const giveawayIds = { open: 0, ended: 0, inactive: 0 };

/** Runs `work` with the (test process's) clock at `time`: the seeded rows get that time. */

async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  return page;
}

/** Fails with every violation found, so the message says what to fix. */
async function expectAccessible(page: Page, label: string): Promise<void> {
  const violations = await axeViolations(page, label);
  expect(violations.join("\n"), `axe found serious or critical violations on ${label}`).toBe("");
}

/**
 * A page at both sizes: axe at 1280×800 and at 390×844 (the layout changes), and a screenshot at each,
 * `a11y-{name}-desktop.png` and `a11y-{name}-phone.png`.
 */
async function checkPage(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const violations: string[] = [];
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    violations.push(...(await axeViolations(page, `${name} (${size})`)));
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `a11y-${name}-${size}.png`), animations: "disabled" });
  }
  await page.setViewportSize(DESKTOP);
  await settle(page);
  expect(violations.join("\n"), `axe found serious or critical violations on ${name}`).toBe("");
}

async function gotoPage(page: Page, target: (typeof PAGES)[number]): Promise<void> {
  await page.goto(target.path);
  await page.getByRole("heading", { name: target.heading, level: 1 }).waitFor();
}

type Focused = { tag: string; name: string; text: string; role: string | null; indicator: boolean; inDialog: boolean };

/** What has the keyboard focus, its accessible-ish name, and whether a focus indicator is drawn. */
function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { tag: "body", name: "", text: "", role: null, indicator: false, inDialog: false };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    const ring = style.boxShadow !== "none" && style.boxShadow !== "";
    return {
      tag: element.tagName.toLowerCase(),
      name: element.getAttribute("aria-label") ?? element.textContent?.trim() ?? "",
      text: element.textContent?.trim() ?? "",
      role: element.getAttribute("role"),
      indicator: outline || ring,
      inDialog: element.closest('[role="dialog"], [role="alertdialog"]') !== null,
    };
  });
}

/**
 * Presses Tab (or Shift+Tab) until `wanted` holds for the focused element, checking on the way that each
 * stop shows a focus indicator; fails after `limit` presses.
 */
async function tabTo(page: Page, wanted: (now: Focused) => boolean, { limit = 60, back = false } = {}): Promise<Focused> {
  const stops: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const now = await focused(page);
    stops.push(`${now.tag}:${now.name.slice(0, 40)}`);
    expect(now.indicator, `no visible focus indicator on ${now.tag} "${now.name}"`).toBe(true);
    if (wanted(now)) return now;
  }
  throw new Error(`not reached with ${limit} presses of Tab; focus went through: ${stops.join(" → ")}`);
}

async function expectFocusTrapped(page: Page, dialog: Locator, presses = 8): Promise<void> {
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let i = 0; i < presses; i++) {
      await page.keyboard.press(key);
      expect(await dialog.evaluate((node) => node.contains(document.activeElement)), `focus left the dialog on ${key} #${i + 1}`).toBe(
        true,
      );
      expect((await focused(page)).indicator, "no visible focus indicator inside the dialog").toBe(true);
    }
  }
}

async function connectedPage(privateKeyHex: string): Promise<{ page: Page; mydoge: MyDogeHandle }> {
  const page = await open();
  const mydoge = await injectMyDoge(page, { privateKeyHex, connected: true });
  return { page, mydoge };
}

async function openStakes(): Promise<string[]> {
  const rows = await world.db.sql<{ name: string }[]>`
    select i.name from stakes s join items i on i.id = s.item_id where s.ended_at is null and s.address = ${world.holder.address}
    order by i.id`;
  return rows.map((row) => row.name);
}

const itemCard = (page: Page, name: string) =>
  page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });
const proposalCard = (page: Page, title: string) =>
  page.getByTestId("proposal-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
  const { holder, other, admin } = world;
  await world.addPoints(holder.address, 1000);
  await world.addPoints(other.address, 40);
  const now = Date.now();

  // The holder's Society Spooks have been staked for days (voting power 3); the Spooks are free to stake.
  const society = world.holderItems.filter((item) => item.collection === "spook-society").map((item) => item.inscriptionId);
  const otherItems = world.items
    .filter((item) => !world.holderItems.includes(item))
    .slice(0, 2)
    .map((item) => item.inscriptionId);
  await atTime(now - 5 * DAY, async () => {
    await stakeItems(world.db.sql, holder.address, await findItems(world.db.sql, society));
    await stakeItems(world.db.sql, other.address, await findItems(world.db.sql, otherItems));
  });

  // Giveaways: open, ended with the holder as winner, inactive with a broken image.
  const openGiveaway = await world.createGiveaway({
    title: "Haunted Hoodie",
    description: "A hoodie that glows in the dark. Ships worldwide.",
    pointsCost: 100,
    endDate: new Date(now + 3 * DAY),
    imageUrl: world.upload("a11y-hoodie.svg", spookySvg("Haunted Hoodie")),
  });
  const ended = await world.createGiveaway({
    title: "Pumpkin Patch Pass",
    description: "A season pass to the pumpkin patch.",
    pointsCost: 50,
    endDate: new Date(now + 2 * DAY),
    imageUrl: world.upload("a11y-pumpkin.svg", spookySvg("Pumpkin Pass", 20)),
  });
  const inactive = await world.createGiveaway({
    title: "Crypt Key",
    description: "Opens the crypt. Its image is broken on purpose.",
    pointsCost: 10,
    endDate: new Date(now + DAY),
    imageUrl: "/uploads/does-not-exist.png",
  });
  Object.assign(giveawayIds, { open: openGiveaway.id, ended: ended.id, inactive: inactive.id });
  await enterGiveaway(world.db.sql, { giveawayId: ended.id, address: holder.address, tickets: 2 });
  await world.draw(ended.id);
  await world.db.sql`update giveaways set end_date = ${new Date(now - HOUR)} where id = ${ended.id}`;
  await setGiveawayActive(world.db.sql, inactive.id, false, { kind: "system" });

  // Proposals: completed (the holder voted), active (multiple choice), upcoming.
  const by = { kind: "web" as const, address: admin.address };
  completed = await atTime(now - 4 * DAY, () =>
    createProposal(
      world.db.sql,
      {
        title: "Adopt the ghost mascot",
        description: "Make the little ghost our official mascot.",
        startDate: new Date(now - 3 * DAY),
        endDate: new Date(now - DAY),
        voteType: "yes_no",
        createdBy: admin.address,
      },
      by,
    ),
  );
  active = await atTime(now - 2 * HOUR, () =>
    createProposal(
      world.db.sql,
      {
        title: "Pick the next Spooky event",
        description: "The treasury can fund one event this season.",
        startDate: new Date(now - HOUR),
        endDate: new Date(now + 3 * DAY),
        voteType: "multiple_choice",
        options: ["Costume contest", "Scavenger hunt", "Pixel-art jam"],
        createdBy: admin.address,
      },
      by,
    ),
  );
  upcoming = await createProposal(
    world.db.sql,
    {
      title: "Double points weekend",
      description: "Stakers earn double Spook Points for one weekend.",
      startDate: new Date(now + 2 * DAY),
      endDate: new Date(now + 4 * DAY),
      voteType: "yes_no",
      createdBy: admin.address,
    },
    by,
  );
  for (const [address, option] of [
    [holder.address, 0],
    [other.address, 1],
  ] as const) {
    await atTime(now - 2 * DAY, () =>
      castVote(world.db.sql, {
        proposalId: completed.id,
        optionId: completed.options[option].id,
        address,
        signature: "seed",
        message: "seed",
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("axe: no serious or critical violation", () => {
  test("without MyDoge: every page, and the proposal dialog", async () => {
    const page = await open();
    for (const target of PAGES) {
      await gotoPage(page, target);
      await checkPage(page, `${target.name}-no-wallet`);
    }
    await gotoPage(page, PAGES[2]);
    await proposalCard(page, active.title).getByRole("link", { name: "View Details" }).click();
    await page.getByRole("dialog", { name: active.title }).getByText("Unique voters").waitFor();
    await expectAccessible(page, "proposal dialog (no wallet)");
  }, 180_000);

  test("MyDoge not connected: every page, and the proposal dialog's 'Connect wallet to vote'", async () => {
    const page = await open();
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex });
    for (const target of PAGES) {
      await gotoPage(page, target);
      await page
        .getByRole("main")
        .getByRole("button", { name: "Connect Wallet" })
        .or(page.getByText("Connect wallet to view"))
        .or(page.getByRole("heading", { name: NOT_FOUND.heading }))
        .first()
        .waitFor();
      await checkPage(page, `${target.name}-disconnected`);
    }
    await gotoPage(page, PAGES[2]);
    await proposalCard(page, active.title).getByRole("link", { name: "View Details" }).click();
    await page.getByRole("dialog", { name: active.title }).getByText("Connect wallet to vote").waitFor();
    await expectAccessible(page, "proposal dialog (not connected)");
  }, 180_000);

  test("connected holder, stake page: dashboard, stake dialog, Stake All confirmation, wallet menu, empty tab", async () => {
    const { page } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, PAGES[0]);
    await itemCard(page, "Spooks #1").waitFor();
    await page.getByTestId("stat-Currently Staked").waitFor();
    await page.getByRole("complementary", { name: "Rewards" }).getByTestId("top-stakers").waitFor();
    await checkPage(page, "stake-connected");

    await itemCard(page, "Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).click();
    await page.getByRole("dialog", { name: "Stake Your Spook" }).getByTestId("stake-message").waitFor();
    await expectAccessible(page, "stake dialog");
    await closeDialogWithEscape(page);

    await page.getByRole("button", { name: "Stake All", exact: true }).click();
    await page.getByRole("alertdialog", { name: /^Stake all \d+ Spooks\?$/ }).waitFor();
    await expectAccessible(page, "Stake All confirmation");
    await closeDialogWithEscape(page);

    await page.getByRole("tab", { name: /^Staked/ }).click();
    await page.getByRole("button", { name: "Unstake All", exact: true }).click();
    await page.getByRole("alertdialog", { name: /^Unstake all \d+ Spooks\?$/ }).waitFor();
    await expectAccessible(page, "Unstake All confirmation");
    await closeDialogWithEscape(page);

    await page
      .getByRole("banner")
      .getByRole("button", { name: `${world.holder.address.slice(0, 4)}...${world.holder.address.slice(-4)}` })
      .click();
    await page.getByRole("menuitem", { name: "Disconnect" }).waitFor();
    await expectAccessible(page, "wallet menu");
    await page.keyboard.press("Escape");
    await page.getByRole("menu").waitFor({ state: "detached" });

    await page.getByRole("tab", { name: /^Spooks/ }).click();
    await page.getByRole("tab", { name: /^Staked/ }).click();
    await itemCard(page, "Spook Society #1").getByText("STAKED").waitFor();
    await expectAccessible(page, "Staked tab");
  }, 180_000);

  test("connected holder, rewards: cards of every kind, fairness details, enlarged image, enter dialog, not enough points", async () => {
    const { page } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, PAGES[1]);
    await page.getByTestId("banner-points").waitFor();
    const card = (id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`);
    await card(giveawayIds.open).waitFor();
    await page.getByTestId("entry-card").first().waitFor();
    await checkPage(page, "rewards-connected");

    await page.getByRole("tab", { name: "All Giveaways" }).click();
    await card(giveawayIds.inactive).getByText("Image Not Available").waitFor();
    await card(giveawayIds.ended).getByText("Provably fair draw").click();
    await card(giveawayIds.ended).getByTestId("draw-seed").waitFor();
    await expectAccessible(page, "All Giveaways (ended, inactive, fairness details)");

    await card(giveawayIds.open).getByRole("button", { name: "Enlarge image of Haunted Hoodie" }).click();
    await page.getByRole("dialog", { name: "Haunted Hoodie" }).getByRole("img", { name: "Haunted Hoodie" }).waitFor();
    await expectAccessible(page, "enlarged image");
    await closeDialogWithEscape(page);

    await page.getByRole("tab", { name: "Active Giveaways" }).click();
    await card(giveawayIds.open).getByRole("button", { name: "Enter Giveaway" }).click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    await dialog.getByTestId("enter-balance").waitFor();
    await expectAccessible(page, "enter dialog");
    await dialog.getByLabel("Number of tickets").fill("99");
    await dialog.getByRole("alert").getByText("Not Enough Points").waitFor();
    await expectAccessible(page, "enter dialog, not enough points");
    await closeDialogWithEscape(page);
  }, 180_000);

  test("connected holder, points history: days, balance chart, kind filter, export buttons", async () => {
    const { page } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, POINTS_HISTORY);
    await page.getByTestId("history-day").first().waitFor();
    await page.locator('[data-testid="balance-chart"][data-drawn="true"]').waitFor();
    await checkPage(page, "points-history-connected");
    await page.getByLabel("Kind").selectOption("giveaway_entry");
    await page.locator('[data-testid="history-entry"][data-kind="giveaway_entry"]').first().waitFor();
    await expectAccessible(page, "points history filtered by kind");
  }, 180_000);

  test("connected holder, governance: page, vote form, results of a completed vote, upcoming; /admin refused", async () => {
    const { page } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, PAGES[2]);
    await page.getByTestId("voting-power").waitFor();
    await checkPage(page, "governance-connected");

    await proposalCard(page, active.title).getByRole("link", { name: "View Details" }).click();
    let dialog = page.getByRole("dialog", { name: active.title });
    await dialog.getByRole("radio", { name: "Costume contest" }).waitFor();
    await expectAccessible(page, "proposal dialog, vote form");
    await closeDialogWithEscape(page);

    const tabs = page.getByRole("tablist", { name: "Proposals by status" });
    await tabs.getByRole("tab", { name: /^Completed/ }).click();
    await proposalCard(page, completed.title).getByRole("link", { name: "View Details" }).click();
    dialog = page.getByRole("dialog", { name: completed.title });
    await dialog.getByRole("list", { name: "Results by option" }).waitFor();
    await dialog.getByText("You've already voted").waitFor();
    await expectAccessible(page, "proposal dialog, results");
    await closeDialogWithEscape(page);

    await tabs.getByRole("tab", { name: /^Upcoming/ }).click();
    await proposalCard(page, upcoming.title).getByRole("link", { name: "View Details" }).click();
    await page.getByRole("dialog", { name: upcoming.title }).getByText("Voting hasn't started yet").waitFor();
    await expectAccessible(page, "proposal dialog, upcoming");
    await closeDialogWithEscape(page);

    await gotoPage(page, PAGES[3]);
    await page.getByText("You don't have permission to access this admin panel").waitFor();
    await checkPage(page, "admin-forbidden");

    // The 404 page stands inside the layout: its header shows the connected wallet too.
    await gotoPage(page, NOT_FOUND);
    await checkPage(page, "not-found-connected");
  }, 180_000);

  test("signed in as the admin: every other page, at both sizes", async () => {
    const page = await open();
    await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await gotoPage(page, PAGES[3]);
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    const signedIn = () =>
      page
        .getByRole("banner")
        .getByRole("button", { name: `${world.admin.address.slice(0, 4)}...${world.admin.address.slice(-4)}` })
        .waitFor();
    for (const target of [PAGES[0], PAGES[1], PAGES[2], POINTS_HISTORY, NOT_FOUND]) {
      await gotoPage(page, target);
      if (target !== NOT_FOUND) await signedIn();
      await checkPage(page, `${target.name}-admin`);
    }
    // Still signed in: the admin panel opens without asking again.
    await gotoPage(page, PAGES[3]);
    await page.getByRole("tab", { name: "User Points" }).waitFor();
  }, 240_000);

  test("the admin: every tab, the Add Points and Edit Image dialogs, validation errors, confirmations", async () => {
    const page = await open();
    await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await gotoPage(page, PAGES[3]);
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    await page.getByTestId("user-row").first().waitFor();
    await checkPage(page, "admin-points");

    await page.getByRole("button", { name: `Add points to ${world.holder.address}` }).click();
    let dialog = page.getByRole("dialog", { name: "Add Points" });
    await dialog.getByLabel("Points Amount").waitFor();
    await expectAccessible(page, "Add Points dialog");
    await dialog.getByRole("button", { name: "Add Points" }).click();
    await dialog.getByText("Please enter a positive number of points").waitFor();
    await expectAccessible(page, "Add Points dialog with an error");
    await closeDialogWithEscape(page);

    await page.getByRole("button", { name: `Clear points of ${world.other.address}` }).click();
    // Issue 33: a dialog naming the amount, with an optional reason.
    await page.getByRole("dialog", { name: "Clear points?" }).waitFor();
    await expectAccessible(page, "Clear Points confirmation");
    await closeDialogWithEscape(page);

    await page.getByRole("tab", { name: "Giveaways" }).click();
    await page.getByTestId("admin-giveaway").first().waitFor();
    await page.getByRole("button", { name: "Create Giveaway" }).click();
    await waitForToast(page, "Missing Fields");
    await checkPage(page, "admin-giveaways");

    await page.getByTestId("admin-giveaway").first().getByRole("button", { name: "Edit Image" }).click();
    dialog = page.getByRole("dialog", { name: "Edit Image" });
    await dialog.getByLabel("New image").waitFor();
    await expectAccessible(page, "Edit Image dialog");
    await closeDialogWithEscape(page);

    const openRow = page.getByTestId("admin-giveaway").filter({ has: page.getByRole("heading", { name: "Haunted Hoodie" }) });
    await openRow.getByRole("button", { name: "Select Winner" }).click();
    await page.getByRole("alertdialog", { name: "Select a winner?" }).waitFor();
    await expectAccessible(page, "Select Winner confirmation");
    await closeDialogWithEscape(page);

    await page.getByRole("tab", { name: "Governance" }).click();
    await page.getByTestId("admin-proposal").first().waitFor();
    await page.getByLabel("Vote Type").selectOption("multiple_choice");
    await page.getByLabel("New option").fill("Ghost tour");
    await page.getByRole("button", { name: "Add Option" }).click();
    await page.getByRole("button", { name: "Remove option Ghost tour" }).waitFor();
    await checkPage(page, "admin-governance");

    await page.getByTestId("admin-proposal").first().getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alertdialog", { name: "Delete proposal?" }).waitFor();
    await expectAccessible(page, "Delete proposal confirmation");
    await closeDialogWithEscape(page);
  }, 240_000);
});

describe("keyboard only", () => {
  test("stake: Tab to a Spook's Stake button, Enter, focus trapped, Escape returns focus, Enter signs and stakes", async () => {
    const { page, mydoge } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, PAGES[0]);
    await itemCard(page, "Spooks #2").waitFor();
    const before = await openStakes();
    expect(before).not.toContain("Spooks #2");

    // From the top of the page, Tab by Tab (every stop shows a focus indicator).
    await page.locator("body").evaluate((body) => (body as HTMLElement).focus());
    await tabTo(page, (now) => now.name === "Stake Spooks #2");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
    await dialog.getByTestId("stake-message").waitFor();
    await expect.poll(async () => (await focused(page)).inDialog).toBe(true);
    await expectFocusTrapped(page, dialog);

    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(async () => (await focused(page)).name).toBe("Stake Spooks #2");
    expect(mydoge.signed).toEqual([]);

    // Again, and confirm with the keyboard.
    await page.keyboard.press("Enter");
    await dialog.getByTestId("stake-message").waitFor();
    const message = (await dialog.getByTestId("stake-message").textContent()) ?? "";
    const sign = await tabTo(page, (now) => now.text === "Sign & Stake", { limit: 8 });
    expect(sign.inDialog).toBe(true);
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    await waitForToast(page, "Spook Staked!");
    expect(mydoge.signed).toEqual([message]);
    await itemCard(page, "Spooks #2").getByText("STAKED").waitFor();
    expect((await openStakes()).toSorted()).toEqual([...before, "Spooks #2"].toSorted());
    // The focus is back on the card's button, which now unstakes.
    await expect.poll(async () => (await focused(page)).name).toBe("Unstake Spooks #2");
  }, 120_000);

  test("vote: Tab to a proposal, Enter, choose an option with the arrow keys, sign and submit with Enter", async () => {
    const { page, mydoge } = await connectedPage(world.holder.privateKeyHex);
    await gotoPage(page, PAGES[2]);
    await page.getByTestId("voting-power").waitFor();

    await page.locator("body").evaluate((body) => (body as HTMLElement).focus());
    const inActiveCard = () =>
      page.evaluate(
        (title) => document.activeElement?.closest('[data-testid="proposal-card"]')?.querySelector("h3")?.textContent === title,
        active.title,
      );
    await tabTo(page, (stop) => stop.text === "View Details");
    expect(await inActiveCard()).toBe(true);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: active.title });
    await dialog.getByRole("radio", { name: "Costume contest" }).waitFor();
    await expectFocusTrapped(page, dialog);

    // The radio group is one Tab stop; the arrow keys choose.
    await tabTo(page, (now) => now.role === "radio", { limit: 12 });
    // Held until the focus moves, as a person's key is: radix moves the focus a task after keydown, and checks the
    // radio it lands on only while the key is still down (a fixed 80 ms hold lost that race on a busy machine).
    const scavengerHunt = dialog.getByRole("radio", { name: "Scavenger hunt" });
    await page.keyboard.down("ArrowDown");
    await expect.poll(() => scavengerHunt.evaluate((node) => node === document.activeElement)).toBe(true);
    await page.keyboard.up("ArrowDown");
    await expect.poll(() => scavengerHunt.getAttribute("aria-checked")).toBe("true");
    expect(await dialog.getByRole("radio", { name: "Costume contest" }).getAttribute("aria-checked")).toBe("false");

    await tabTo(page, (now) => now.text === "Sign and Vote", { limit: 6 });
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Submit Vote" }).waitFor();
    // The focus stays in the dialog, and Submit Vote is reached with Tab.
    expect((await focused(page)).inDialog).toBe(true);
    await expectAccessible(page, "proposal dialog, signed (Submit Vote)");
    const submit = await focused(page);
    if (submit.text !== "Submit Vote") await tabTo(page, (now) => now.text === "Submit Vote", { limit: 12 });
    await page.keyboard.press("Enter");
    await waitForToast(page, "Vote submitted successfully", "Your vote has been recorded.");
    await dialog.getByText("You voted for option: Scavenger hunt").waitFor();
    expect(mydoge.signed.at(-1)).toMatch(new RegExp(`^Voting on proposal #${active.id}: .+\\. Option: ${active.options[1].id}\\. `));
    const [vote] = await world.db.sql<{ optionId: number }[]>`
      select option_id from votes where proposal_id = ${active.id} and address = ${world.holder.address}`;
    expect(vote?.optionId).toBe(active.options[1].id);

    // Escape (the first press closes the toast on top) gives the focus back to the card's View Details button.
    await closeDialogWithEscape(page);
    await expect.poll(async () => (await focused(page)).text === "View Details" && (await inActiveCard())).toBe(true);
  }, 120_000);
});
