/**
 * Issue 27, rules 1 and 2, in a real browser against the real app and database:
 * 1. every action the server refuses shows the spec's toast title and text verbatim AND the server's
 *    `message` on its own line, with the next step (sign again, reload). Real refusals where the server can
 *    be brought to refuse: a signature older than 10 minutes (the page's clock set back), a giveaway closed
 *    after the page loaded, a vote already cast, a giveaway deleted under the admin; the admin sign-in is
 *    refused through `page.route` (a real expired challenge would need the server's clock).
 * 2. every data view whose GET fails (a 500 with a `message`, or a network failure) says so, shows no empty
 *    list and no 0 points in its place, and its Retry (with the route restored) shows the data.
 */
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { deleteGiveaway, enterGiveaway, setGiveawayActive, type Giveaway } from "../../db/queries/giveaways.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { atTime } from "./support/clock.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const EXPIRED = "The signed message has expired: its timestamp is more than 10 minutes from server time";
const SIGN_AGAIN = "Sign again to retry.";
const RELOAD = "Reload the page to see the current state.";

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let page: Page;
let proposal: Proposal;
let lamp: Giveaway;
let cloak: Giveaway;
let drawnId = 0;

async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  return page;
}

const card = (name: string) => page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });
const giveawayCard = (id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`);

/**
 * The one toast on screen: its title, the spec's text, the server's reason and the next step, each on its
 * own line (its own element).
 */
async function expectRefusalToast(on: Page, expected: { title: string; description: string; reason: string; nextStep: string | null }) {
  const toast = on.locator("li[data-variant]").filter({ hasText: expected.title });
  await toast.getByText(expected.title, { exact: true }).waitFor();
  await toast.getByText(expected.description, { exact: true }).waitFor();
  const reason = toast.getByTestId("toast-reason");
  await reason.waitFor();
  expect(await reason.textContent()).toBe(expected.reason);
  if (expected.nextStep === null) expect(await toast.getByTestId("toast-next-step").count()).toBe(0);
  else expect(await toast.getByTestId("toast-next-step").textContent()).toBe(expected.nextStep);
  // Its own line: the reason starts below the spec's text.
  const [textBox, reasonBox] = await Promise.all([
    toast.getByText(expected.description, { exact: true }).boundingBox(),
    reason.boundingBox(),
  ]);
  expect(reasonBox!.y).toBeGreaterThanOrEqual(textBox!.y + textBox!.height - 1);
  // Closed, unless a modal dialog keeps the rest of the page out of reach (the next toast replaces it).
  if ((await on.getByRole("dialog").count()) > 0) return;
  await toast.getByRole("button", { name: "Close" }).click();
  await toast.waitFor({ state: "detached" });
}

/** Sets the page's clock `offsetMs` off (new Date() and Date.now()); 0 puts it back. */
async function shiftPageClock(on: Page, offsetMs: number) {
  await on.evaluate((offset) => {
    const w = window as unknown as { __RealDate?: DateConstructor; Date: DateConstructor };
    const Real = (w.__RealDate ??= Date);
    if (offset === 0) {
      w.Date = Real;
      return;
    }
    class Shifted extends Real {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(Real.now() + offset);
        else super(...(args as [number]));
      }
      static now() {
        return Real.now() + offset;
      }
    }
    w.Date = Shifted as DateConstructor;
  }, offsetMs);
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
  const now = Date.now();
  const { holder } = world;
  await world.addPoints(holder.address, 1_000);
  // The Society Spooks staked: something to unstake; the Spooks not: something to stake.
  const society = world.holderItems.filter((item) => item.collection === "spook-society").map((item) => item.inscriptionId);
  await atTime(now - DAY, async () => stakeItems(world.db.sql, holder.address, await findItems(world.db.sql, society)));

  proposal = await atTime(now - 2 * HOUR, () =>
    createProposal(
      world.db.sql,
      {
        title: "Light the lanterns",
        description: "Spend treasury points on lanterns.",
        startDate: new Date(now - HOUR),
        endDate: new Date(now + 3 * DAY),
        voteType: "yes_no",
        createdBy: world.admin.address,
      },
      { kind: "web", address: world.admin.address },
    ),
  );
  lamp = await world.createGiveaway({ title: "Lantern Lamp", description: "A lamp.", pointsCost: 100, endDate: new Date(now + 3 * DAY) });
  await enterGiveaway(world.db.sql, { giveawayId: lamp.id, address: holder.address, tickets: 1 });
  // Stays through the sweep of rule 2 (the lamp is deleted by the admin's test).
  cloak = await world.createGiveaway({ title: "Cloak", description: "A cloak.", pointsCost: 10, endDate: new Date(now + 3 * DAY) });
  await enterGiveaway(world.db.sql, { giveawayId: cloak.id, address: holder.address, tickets: 1 });
  const drawn = await world.createGiveaway({ title: "Bell", description: "A bell.", pointsCost: 10, endDate: new Date(now + 3 * DAY) });
  await enterGiveaway(world.db.sql, { giveawayId: drawn.id, address: holder.address, tickets: 1 });
  await world.draw(drawn.id);
  drawnId = drawn.id;

  page = await open();
  await injectMyDoge(page, { privateKeyHex: holder.privateKeyHex, connected: true });
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

/**
 * A GET that fails while `failing` is true: answered 500 `{message}`, or with `network` never answered
 * (the connection fails, as offline).
 */
async function failWhile(on: Page, matches: (url: URL) => boolean, how: "500" | "network" = "500") {
  const state = { failing: true };
  await on.route(
    (url) => matches(url),
    (route) =>
      !state.failing || route.request().method() !== "GET"
        ? route.continue()
        : how === "network"
          ? route.abort("internetdisconnected")
          : route.fulfill({
              status: 500,
              contentType: "application/json",
              body: JSON.stringify({ message: "The database is not answering" }),
            }),
  );
  return state;
}

/** The failed state in `scope`: says it failed, names what, gives the server's reason; Retry then shows `data`. */
async function expectFailedThenRetry(scope: Locator, what: string, state: { failing: boolean }, data: Locator) {
  const failed = scope.getByTestId("load-failed").filter({ hasText: `Could not load ${what}.` });
  await failed.waitFor();
  state.failing = false;
  await failed.getByRole("button", { name: /Retry/ }).click();
  await data.waitFor();
  expect(await failed.count()).toBe(0);
}

describe("rule 1: a refusal shows the server's reason", () => {
  test("stake with a signature older than 10 minutes: the spec's text, then the server's 'expired', then 'Sign again'", async () => {
    await page.goto("/");
    await card("Spooks #1").waitFor();
    await shiftPageClock(page, -20 * 60_000);
    try {
      await card("Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
      await dialog.getByRole("button", { name: "Sign & Stake" }).click();
      await expectRefusalToast(page, {
        title: "Staking Failed",
        description: "Failed to stake: Staking failed: Unauthorized",
        reason: EXPIRED,
        nextStep: SIGN_AGAIN,
      });
    } finally {
      await shiftPageClock(page, 0);
    }
    await card("Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).waitFor();
  });

  test("unstake, Stake All and Unstake All with an expired signature: the spec's texts and the server's reason", async () => {
    await shiftPageClock(page, -20 * 60_000);
    try {
      await card("Spook Society #1").getByRole("button", { name: "Unstake Spook Society #1", exact: true }).click();
      // Issue 33, item 1: a single unstake asks first.
      await page
        .getByRole("alertdialog", { name: "Unstake Spook Society #1?" })
        .getByRole("button", { name: "Unstake", exact: true })
        .click();
      await expectRefusalToast(page, {
        title: "Unstaking Failed",
        description: "An error occurred while unstaking. Please try again.",
        reason: EXPIRED,
        nextStep: SIGN_AGAIN,
      });

      await page.getByRole("button", { name: "Stake All", exact: true }).click();
      const stakeAll = page.getByRole("alertdialog", { name: "Stake all 3 Spooks?" });
      await stakeAll.getByRole("button", { name: "Stake All" }).click();
      await expectRefusalToast(page, {
        title: "Staking Failed",
        description: "An error occurred while staking. Please try again.",
        reason: EXPIRED,
        nextStep: SIGN_AGAIN,
      });

      await page
        .getByRole("tablist", { name: "Filter Spooks" })
        .getByRole("tab", { name: /^Staked/ })
        .click();
      await page.getByRole("button", { name: "Unstake All", exact: true }).click();
      const unstakeAll = page.getByRole("alertdialog", { name: "Unstake all 3 Spooks?" });
      await unstakeAll.getByRole("button", { name: "Unstake All" }).click();
      await expectRefusalToast(page, {
        title: "Unstaking Failed",
        description: "An error occurred while unstaking. Please try again.",
        reason: EXPIRED,
        nextStep: SIGN_AGAIN,
      });
    } finally {
      await shiftPageClock(page, 0);
    }
    expect(await world.db.sql`select count(*)::int as n from stakes where address = ${world.holder.address}`).toEqual([{ n: 3 }]);
  });

  test("enter a giveaway closed after the page loaded: 'Failed to Enter', then 'This giveaway is closed', then reload", async () => {
    await page.goto("/rewards");
    await giveawayCard(lamp.id).getByRole("button", { name: "Add More Tickets" }).click();
    const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
    await dialog.waitFor();
    await setGiveawayActive(world.db.sql, lamp.id, false, { kind: "system" });
    await dialog.getByRole("button", { name: "Enter Giveaway" }).click();
    await expectRefusalToast(page, {
      title: "Failed to Enter",
      description: "There was an error entering the giveaway. Please try again.",
      reason: "This giveaway is closed",
      nextStep: RELOAD,
    });
    await setGiveawayActive(world.db.sql, lamp.id, true, { kind: "system" });
  });

  test("a vote already cast (from another tab) is refused with the server's reason", async () => {
    await page.goto("/governance");
    await page.getByTestId("proposal-card").filter({ hasText: proposal.title }).getByRole("link", { name: "View Details" }).click();
    const dialog = page.getByRole("dialog", { name: proposal.title });
    await dialog.getByRole("radio", { name: "Yes" }).click();
    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await dialog.getByRole("button", { name: "Submit Vote" }).waitFor();
    await castVote(world.db.sql, {
      proposalId: proposal.id,
      optionId: proposal.options[1].id,
      address: world.holder.address,
      signature: "another tab",
      message: "another tab",
    });
    await dialog.getByRole("button", { name: "Submit Vote" }).click();
    await expectRefusalToast(page, {
      title: "Failed to submit vote",
      description: "There was an issue submitting your vote. Please try again.",
      reason: "You've already voted on this proposal",
      nextStep: RELOAD,
    });
    await page.keyboard.press("Escape");
  });

  test("admin: a refused sign-in and a giveaway deleted meanwhile show the server's reason; a failed audit log retries", async () => {
    const admin = await open();
    await injectMyDoge(admin, { privateKeyHex: world.admin.privateKeyHex, connected: true });
    const message = "This sign-in challenge is unknown, expired or already used";
    await admin.route("**/api/auth/session", (route) =>
      route.request().method() === "POST"
        ? route.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ message }) })
        : route.continue(),
    );
    await admin.goto("/admin");
    await expectRefusalToast(admin, {
      title: "Sign-in failed",
      description: "The admin sign-in was not completed.",
      reason: message,
      nextStep: "Sign in again.",
    });
    await admin.unroute("**/api/auth/session");

    await admin.getByRole("button", { name: "Sign In" }).click();
    await admin.getByRole("tab", { name: "Giveaways" }).click();
    const row = admin.getByTestId("admin-giveaway").filter({ has: admin.getByRole("heading", { name: lamp.title }) });
    await row.getByRole("button", { name: "Delete" }).click();
    const confirm = admin.getByRole("alertdialog", { name: "Delete giveaway?" });
    await confirm.waitFor();
    await deleteGiveaway(world.db.sql, lamp.id, { kind: "system" });
    await confirm.getByRole("button", { name: "Delete" }).click();
    // The spec's 'Failed to …: {error}' already carries the server's reason.
    const toast = admin.locator("li[data-variant]").filter({ hasText: "Error Deleting Giveaway" });
    await toast.getByText("Failed to delete giveaway: Giveaway not found", { exact: true }).waitFor();

    // Rule 2 for the admin's one client-side list: the audit log.
    const failing = await failWhile(admin, (url) => url.pathname === "/api/admin/audit");
    await admin.getByRole("tab", { name: "Audit" }).click();
    const tab = admin.getByTestId("audit-tab");
    await tab.getByText("The database is not answering").waitFor();
    expect(await tab.getByText("No changes recorded").count()).toBe(0);
    await expectFailedThenRetry(tab, "the audit log", failing, tab.getByTestId("audit-row").first());
  });
});

describe("rule 2: a failed load is never shown as an empty wallet", () => {
  test("staking page: items, rewards, points, collection statistics and leaderboard each fail on their own and retry", async () => {
    const holder = world.holder.address;
    const failing = {
      items: await failWhile(page, (url) => url.pathname === `/api/wallet-doginals/${holder}`),
      rewards: await failWhile(page, (url) => url.pathname === `/api/rewards/${holder}`),
      stats: await failWhile(page, (url) => url.pathname === `/api/stats/${holder}`),
      leaderboard: await failWhile(page, (url) => url.pathname === "/api/leaderboard", "network"),
    };
    try {
      await page.goto("/");
      const main = page.getByRole("main");
      await main.getByText("Could not load your Spooks.").waitFor();
      await page.getByText("Could not load your rewards.").waitFor();
      await page.getByText("Could not load the leaderboard.").waitFor();
      await page.getByText("Could not load your collection statistics.").waitFor();
      await page.getByRole("group", { name: "Wallet balances" }).first().getByText("Could not load Spook Points.").waitFor();
      // Nothing reads as an empty wallet.
      expect(await page.getByText("No Spooks found in this category").count()).toBe(0);
      expect(await page.getByText(/^0 out of 0 Spooks Staked$/).count()).toBe(0);
      for (const id of ["points-balance", "panel-points", "daily-rate", "stat-Total Spooks"])
        expect(await page.getByTestId(id).count()).toBe(0);
      expect(await page.getByText("Loading leaderboard...").count()).toBe(0);

      await expectFailedThenRetry(main, "your Spooks", failing.items, card("Spooks #1"));
      await expectFailedThenRetry(
        page.getByRole("complementary", { name: "Rewards" }),
        "your rewards",
        failing.rewards,
        page.getByTestId("panel-points"),
      );
      await expectFailedThenRetry(page.locator("body"), "the leaderboard", failing.leaderboard, page.getByTestId("top-stakers"));
      await expectFailedThenRetry(page.locator("body"), "your collection statistics", failing.stats, page.getByTestId("stat-Total Spooks"));
      await page.getByRole("group", { name: "Wallet balances" }).first().getByTestId("points-balance").waitFor();
    } finally {
      await page.unrouteAll();
    }
  });

  test("rewards page: points, giveaways and entries each fail and retry", async () => {
    const holder = world.holder.address;
    const failing = {
      rewards: await failWhile(page, (url) => url.pathname === `/api/rewards/${holder}`),
      giveaways: await failWhile(page, (url) => url.pathname === "/api/giveaways"),
      entries: await failWhile(page, (url) => url.pathname === `/api/giveaways/entries/user/${holder}`),
    };
    try {
      await page.goto("/rewards");
      await page.getByText("Could not load your points.").waitFor();
      await page.getByText("Could not load giveaways.").waitFor();
      await page.getByText("Could not load your entries.").waitFor();
      await page.getByText("The database is not answering").first().waitFor();
      for (const text of ["No active giveaways at the moment. Check back soon!", "No Entries Yet"])
        expect(await page.getByText(text).count()).toBe(0);
      for (const id of ["banner-points", "entries-count", "points-balance"]) expect(await page.getByTestId(id).count()).toBe(0);

      const main = page.getByRole("main");
      await expectFailedThenRetry(main, "your points", failing.rewards, page.getByTestId("banner-points"));
      await expectFailedThenRetry(main, "giveaways", failing.giveaways, page.getByTestId("giveaway-card").first());
      await expectFailedThenRetry(main, "your entries", failing.entries, page.getByTestId("entry-card").first());
    } finally {
      await page.unrouteAll();
    }
  });

  test("governance: voting power, and a proposal's details fail and retry", async () => {
    const holder = world.holder.address;
    const failing = {
      power: await failWhile(page, (url) => url.pathname === `/api/proposals/voting-power/${holder}`),
      proposal: await failWhile(page, (url) => url.pathname === `/api/proposals/${proposal.id}`),
    };
    try {
      await page.goto("/governance");
      const box = page.getByRole("region", { name: "Your Voting Power" });
      await box.getByText("Could not load your voting power.").waitFor();
      expect(await page.getByTestId("voting-power").count()).toBe(0);
      await expectFailedThenRetry(box, "your voting power", failing.power, page.getByTestId("voting-power"));

      await page.getByTestId("proposal-card").filter({ hasText: proposal.title }).getByRole("link", { name: "View Details" }).click();
      const dialog = page.getByRole("dialog", { name: proposal.title });
      await expectFailedThenRetry(dialog, "this proposal", failing.proposal, dialog.getByText("You've already voted"));

      // Verify votes reads the proposal and its receipts again: a failure there says so too.
      failing.proposal.failing = true;
      await dialog.getByRole("button", { name: "Verify votes" }).click();
      await expectFailedThenRetry(dialog, "the votes to verify", failing.proposal, dialog.getByTestId("verify-result"));
      await page.keyboard.press("Escape");
    } finally {
      await page.unrouteAll();
    }
  });

  test("verify this draw: a failed read says so, and Retry reads it", async () => {
    const failing = await failWhile(page, (url) => url.pathname === `/api/giveaways/${drawnId}/draw`);
    try {
      await page.goto(`/giveaways/${drawnId}/verify`);
      await page.getByText("The database is not answering").waitFor();
      await expectFailedThenRetry(page.getByRole("main"), "this draw", failing, page.getByTestId("draw-step").first());
    } finally {
      await page.unrouteAll();
    }
  });

  test("points history: a failed load shows no entries and no chart, and Retry shows them", async () => {
    const holder = world.holder.address;
    const failing = await failWhile(page, (url) => url.pathname === `/api/points/${holder}/history`);
    try {
      await page.goto("/rewards/history");
      await page.getByText("Could not load your points history.").waitFor();
      expect(await page.getByText(/^No entries/).count()).toBe(0);
      expect(await page.getByTestId("history-entry").count()).toBe(0);
      await expectFailedThenRetry(page.getByRole("main"), "your points history", failing, page.getByTestId("history-entry").first());
    } finally {
      await page.unrouteAll();
    }
  });
});
