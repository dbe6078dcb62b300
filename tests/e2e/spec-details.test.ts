/**
 * Issue 12, items 3 and 4, in a real browser against the real app and database: 'Stake All' / 'Unstake All'
 * enabled state and the 'No Unstaked Spooks' toast on a tab with nothing to stake, the failed state (not an
 * empty list) on an inscription fetch error, the 'Staking failed: {status text}' text, the rewards side panel's figures on
 * one line at 1280 and 1366 px, a drawn giveaway closed everywhere, the enter dialog opening 300 ms after
 * its rewards refresh, the enlarged image dialog's own size (cn() merging), voting power in the box and in a
 * proposal's dialog, the chart centre's 'Total' and a seamless 100% slice, and admin form errors clearing
 * as soon as the field is fixed. The holder's page is shared; the tests run in order.
 */
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { enterGiveaway, type Giveaway } from "../../db/queries/giveaways.server.ts";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import {
  closeDialogWithEscape,
  injectMyDoge,
  launchBrowser,
  newPage,
  waitForToast,
  type MyDogeHandle,
  type PageProblems,
} from "./support/browser.ts";
import { spookySvg, startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { atTime } from "./support/clock.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let page: Page;
let mydoge: MyDogeHandle;
let drawn: Giveaway;
let holderWon = false;
let winner = "";
let lantern: Giveaway;
let snapshotProposal: Proposal;
let unanimous: Proposal;

async function stake(address: string, inscriptionIds: string[]) {
  await stakeItems(world.db.sql, address, await findItems(world.db.sql, inscriptionIds));
}

async function open(): Promise<{ page: Page; context: BrowserContext }> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  return { page, context };
}

const card = (name: string) => page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });
const giveawayCard = (id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`);

/** How many lines the element's text takes (distinct line boxes of its text), and whether it overflows. */
function layoutOf(locator: Locator): Promise<{ lines: number; overflows: boolean; text: string }> {
  return locator.evaluate((element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    // Text fragments that overlap vertically share a line (a badge beside a figure); a new line starts below.
    const rects = Array.from(range.getClientRects())
      .filter((rect) => rect.width > 0 && rect.height > 0)
      .sort((a, b) => a.top - b.top);
    let lines = 0;
    let bottom = -Infinity;
    for (const rect of rects) {
      if (rect.top >= bottom - 1) {
        lines++;
        bottom = rect.bottom;
      } else {
        bottom = Math.max(bottom, rect.bottom);
      }
    }
    return { lines, overflows: element.scrollWidth > element.clientWidth + 1, text: element.textContent ?? "" };
  });
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
  const now = Date.now();
  const { holder, other } = world;
  // Big enough figures to need the room: a seven-digit balance.
  await world.addPoints(holder.address, 1_234_567);

  // The holder's Society Spooks have been staked for days; its Spooks are not. 'other' staked one item too.
  const society = world.holderItems.filter((item) => item.collection === "spook-society").map((item) => item.inscriptionId);
  const otherItem = world.items.find((item) => !world.holderItems.includes(item))!.inscriptionId;
  await atTime(now - 5 * DAY, async () => {
    await stake(holder.address, society);
    await stake(other.address, [otherItem]);
  });

  // Governance: an active proposal whose snapshot is the 3 Society Spooks, and a completed one whose only
  // vote makes a 100% slice.
  const admin = { kind: "web" as const, address: world.admin.address };
  snapshotProposal = await atTime(now - 2 * HOUR, () =>
    createProposal(
      world.db.sql,
      {
        title: "Light the lanterns",
        description: "Spend treasury points on lanterns for the community hall.",
        startDate: new Date(now - HOUR),
        endDate: new Date(now + 3 * DAY),
        voteType: "yes_no",
        createdBy: world.admin.address,
      },
      admin,
    ),
  );
  unanimous = await atTime(now - 4 * DAY, () =>
    createProposal(
      world.db.sql,
      {
        title: "Keep the moon on the banner",
        description: "The moon stays.",
        startDate: new Date(now - 3 * DAY),
        endDate: new Date(now - DAY),
        voteType: "yes_no",
        createdBy: world.admin.address,
      },
      admin,
    ),
  );
  await atTime(now - 2 * DAY, () =>
    castVote(world.db.sql, {
      proposalId: unanimous.id,
      optionId: unanimous.options[0].id,
      address: other.address,
      signature: "seed",
      message: "seed",
    }),
  );

  // Giveaways: one drawn while still active and before its end date, one open.
  drawn = await world.createGiveaway({
    title: "Drawn Early Cloak",
    description: "Its winner was drawn before the end date.",
    pointsCost: 10,
    endDate: new Date(now + 2 * DAY),
    imageUrl: world.upload("cloak.svg", spookySvg("Cloak", 200)),
  });
  await world.addPoints(other.address, 100);
  await enterGiveaway(world.db.sql, { giveawayId: drawn.id, address: other.address, tickets: 1 });
  await enterGiveaway(world.db.sql, { giveawayId: drawn.id, address: holder.address, tickets: 1 });
  [winner] = await world.draw(drawn.id);
  holderWon = winner === holder.address;
  lantern = await world.createGiveaway({
    title: "Jack-o'-Lantern Lamp",
    description: "A lamp that flickers like a candle.",
    pointsCost: 100,
    endDate: new Date(now + 3 * DAY),
    imageUrl: world.upload("lamp.svg", spookySvg("Lamp", 30)),
  });

  ({ page } = await open());
  mydoge = await injectMyDoge(page, { privateKeyHex: holder.privateKeyHex, connected: true });
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("staking page details", () => {
  test("'Stake All' is enabled while anything is unstaked; on a tab with nothing to stake it answers 'No Unstaked Spooks'", async () => {
    await page.goto("/");
    await card("Spooks #1").waitFor();
    const tabs = page.getByRole("tablist", { name: "Filter Spooks" });
    const stakeAll = page.getByRole("button", { name: "Stake All", exact: true });
    expect(await stakeAll.isDisabled()).toBe(false);

    // Society: all staked, but the Spooks are not: enabled, and the click says there is nothing here.
    await tabs.getByRole("tab", { name: /^Society/ }).click();
    await card("Spook Society #1").getByText("STAKED").waitFor();
    expect(await stakeAll.isDisabled()).toBe(false);
    await stakeAll.click();
    await waitForToast(page, "No Unstaked Spooks");
    expect(mydoge.signed).toEqual([]);
    expect(await page.getByRole("alertdialog").count()).toBe(0);

    // Staked: 'Unstake All' is enabled (3 staked).
    await tabs.getByRole("tab", { name: /^Staked/ }).click();
    expect(await page.getByRole("button", { name: "Unstake All", exact: true }).isDisabled()).toBe(false);
    await tabs.getByRole("tab", { name: /^All/ }).click();
  });

  test("a refused stake call raises 'Staking failed: {status text}' (shown in the 'Staking Failed' toast)", async () => {
    await page.route("**/api/stake", (route) =>
      route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ message: "Refused by the test" }) }),
    );
    try {
      await card("Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
      await dialog.getByRole("button", { name: "Sign & Stake" }).click();
      await waitForToast(page, "Staking Failed", "Failed to stake: Staking failed: Conflict");
      await dialog.waitFor({ state: "detached" });
      // Rolled back.
      await card("Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).waitFor();
    } finally {
      await page.unroute("**/api/stake");
    }
  });

  test("the rewards side panel keeps each figure on one line at 1280 and 1366 px wide", async () => {
    const panel = page.getByRole("complementary", { name: "Rewards" });
    await panel
      .getByTestId("panel-points")
      .getByText(/^1,234,\d{3}$/)
      .waitFor();
    await panel.getByTestId("top-stakers").waitFor();
    for (const width of [1280, 1366]) {
      await page.setViewportSize({ width, height: 800 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const figures = [
        panel.getByTestId("daily-rate"),
        panel.getByTestId("staked-share"),
        panel.getByTestId("reward-tier"),
        panel.getByTestId("panel-points"),
        panel.getByTestId("rank"),
        ...(await panel.getByTestId("reward-multipliers").locator("td, th").all()),
        // Each staker's address, points, and (issue 33) daily rate.
        ...(await panel
          .getByTestId("top-stakers")
          .locator("li span.font-mono, li [data-points-exact], li [data-testid=top-staker-rate]")
          .all()),
      ];
      expect(figures.length).toBeGreaterThan(10);
      for (const figure of figures) {
        const layout = await layoutOf(figure);
        expect({ width, ...layout }).toEqual({ width, lines: 1, overflows: false, text: layout.text });
      }
      expect(await layoutOf(panel.getByTestId("staked-share"))).toMatchObject({ text: "3 out of 6 Spooks Staked" });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test("an inscription fetch error shows as failed with a retry, not as an empty list (DECISIONS replaces the spec's silent fallback)", async () => {
    await page.route("**/api/wallet-doginals/**", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ message: "down" }) }),
    );
    try {
      await page.reload();
      await page.getByText("Could not load your Spooks.").waitFor();
      expect(await page.getByTestId("item-card").count()).toBe(0);
      expect(await page.getByText("No Spooks found in this category").count()).toBe(0);
      expect(await page.locator("li[data-variant]").count()).toBe(0);
    } finally {
      await page.unroute("**/api/wallet-doginals/**");
    }
    await page.getByTestId("load-failed").getByRole("button", { name: "Retry" }).click();
    await card("Spooks #1").waitFor();
  });
});

describe("rewards page details", () => {
  test("a giveaway with a drawn winner is closed: not active, 'Drawn' overlay, button disabled, entry 'Drawn'", async () => {
    await page.goto("/rewards");
    await giveawayCard(lantern.id).waitFor();
    // Active Giveaways: the open one only; the drawn one stands under "Recent winners" below them (issue 27, item 8).
    const underRecentWinners = page.getByTestId("recent-winners").locator(`[data-testid="giveaway-card"][data-giveaway-id="${drawn.id}"]`);
    expect(await giveawayCard(drawn.id).count()).toBe(await underRecentWinners.count());
    await page.getByRole("tab", { name: "All Giveaways" }).click();
    const card = giveawayCard(drawn.id);
    await card.waitFor();
    // Issue 33, item 7: the admin's and the CLI's word for the state, "Drawn"; the time badge still says "Ended".
    await card.getByText("Drawn", { exact: true }).first().waitFor();
    expect(await card.getByTestId("time-remaining").textContent()).toBe("Ended");
    await card.getByText(`${winner.slice(0, 6)}...${winner.slice(-4)}`).waitFor();
    expect(await card.getByRole("button", { name: /^(Enter Giveaway|Add More Tickets)$/ }).isDisabled()).toBe(true);
    // The holder's entry is 'Drawn' (or 'Won!'), not 'Active'.
    const entry = page.getByTestId("entry-card").filter({ hasText: drawn.title });
    expect(await entry.getByTestId("entry-status").textContent()).toBe(holderWon ? "Won!" : "Drawn");
    // The open one is still enterable.
    expect(await giveawayCard(lantern.id).getByRole("button", { name: "Enter Giveaway" }).isDisabled()).toBe(false);
  });

  test("the enlarged image dialog takes its own width, padding and title size", async () => {
    await giveawayCard(lantern.id)
      .getByRole("button", { name: `Enlarge image of ${lantern.title}` })
      .click();
    const dialog = page.getByRole("dialog", { name: lantern.title });
    await dialog.waitFor();
    const style = await dialog.evaluate((node) => {
      const own = getComputedStyle(node);
      const title = getComputedStyle(node.querySelector("h2")!);
      return { maxWidth: own.maxWidth, padding: own.paddingTop, titleSize: title.fontSize };
    });
    expect(style).toEqual({ maxWidth: "768px", padding: "12px", titleSize: "16px" });
    await closeDialogWithEscape(page); // a toast of an earlier test may still be up: it takes the first Escape
  });

  test("the enter dialog opens 300 ms after its rewards refresh", async () => {
    await page.route("**/api/rewards/**", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      await route.continue().catch(() => {});
    });
    try {
      // Timed by the page's own clock: when Playwright hears of a response or a dialog depends on a loaded machine.
      await page.evaluate(recordEnterDialogTimes);
      await giveawayCard(lantern.id).getByRole("button", { name: "Enter Giveaway" }).click();
      const dialog = page.getByRole("dialog", { name: "Enter Giveaway" });
      // Not while the refresh is under way.
      await page.waitForTimeout(400);
      expect(await dialog.count()).toBe(0);
      await dialog.waitFor();
      const times = await page.evaluate(() => (window as unknown as { enterDialogTimes: EnterDialogTimes }).enterDialogTimes);
      expect(times.refreshed).toBeDefined();
      expect(times.opened! - times.clicked!).toBeGreaterThanOrEqual(1000);
      expect(times.opened! - times.refreshed!).toBeGreaterThanOrEqual(290); // 300 ms, less the clock's coarsening
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
    } finally {
      await page.unroute("**/api/rewards/**");
    }
  });
});

type EnterDialogTimes = { clicked?: number; refreshed?: number; opened?: number };

/** Runs in the page: the click, the end of the rewards response that follows it, and the dialog's arrival, on performance.now(). */
function recordEnterDialogTimes() {
  const times: EnterDialogTimes = {};
  (window as unknown as { enterDialogTimes: EnterDialogTimes }).enterDialogTimes = times;
  document.addEventListener("click", () => (times.clicked ??= performance.now()), { capture: true, once: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
      if (new URL(entry.name).pathname.startsWith("/api/rewards/") && times.clicked !== undefined && entry.startTime >= times.clicked) {
        times.refreshed = entry.responseEnd;
      }
    }
  }).observe({ type: "resource" });
  const dialogs = new MutationObserver(() => {
    if (![...document.querySelectorAll('[role="dialog"]')].some((node) => node.textContent?.includes("Enter Giveaway"))) return;
    times.opened = performance.now();
    dialogs.disconnect();
  });
  dialogs.observe(document.body, { childList: true, subtree: true });
}

describe("governance details", () => {
  test("voting power: the box is the current staked count, a proposal's dialog its snapshot at the start", async () => {
    // Stake the Spooks now: 6 staked now, 3 at the proposal's start.
    await stake(
      world.holder.address,
      world.holderItems.filter((item) => item.collection === "spooks").map((item) => item.inscriptionId),
    );
    await page.goto("/governance");
    await page.getByTestId("voting-power").getByText("6", { exact: true }).waitFor();
    await page.getByText("Based on staked Spooks").waitFor();
    expect(await page.getByTestId("voting-power-note").textContent()).toBe(
      "Your Spooks staked now. Each proposal counts the Spooks you had staked when its voting opened.",
    );

    await page.getByTestId("proposal-card").filter({ hasText: snapshotProposal.title }).getByRole("link", { name: "View Details" }).click();
    const dialog = page.getByRole("dialog", { name: snapshotProposal.title });
    await dialog.getByText("Your voting power: 3").waitFor();
    const note = (await dialog.getByTestId("proposal-power-note").textContent()) ?? "";
    expect(note).toMatch(
      /^For this proposal: the Spooks you had staked when its voting opened \([A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [A-Z][A-Za-z0-9+:-]*\)\.$/,
    );
    await closeDialogWithEscape(page); // a toast of an earlier test may still be up: it takes the first Escape
  });

  test("results: the centre reads 'Total' (not upper-cased); a 100% slice is drawn without a border", async () => {
    await page.getByRole("tab", { name: "Completed (1)" }).click();
    await page.getByTestId("proposal-card").filter({ hasText: unanimous.title }).getByRole("link", { name: "View Details" }).click();
    const dialog = page.getByRole("dialog", { name: unanimous.title });
    await dialog.getByTestId("results-total").getByText("1", { exact: true }).waitFor();
    const label = dialog.getByTestId("results-total-label");
    expect(await label.innerText()).toBe("Total");
    expect(await label.evaluate((node) => getComputedStyle(node).textTransform)).toBe("none");
    expect(await dialog.getByRole("img", { name: /^Results chart/ }).getAttribute("data-slice-border")).toBe("0");
    await page.keyboard.press("Escape");
  });
});

describe("admin form details", () => {
  test("after a failed submit, a field's error clears as soon as the field is fixed; the others stay", async () => {
    const { page: admin } = await open();
    await injectMyDoge(admin, { privateKeyHex: world.admin.privateKeyHex });
    await admin.goto("/admin");
    await admin.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await admin.getByRole("tab", { name: "User Points" }).waitFor();

    // The red 'Clear Points' keeps its red over the ghost button's grey (cn() merges).
    const clear = admin.getByRole("button", { name: `Clear points of ${world.holder.address}` });
    await clear.waitFor();
    const colours = await clear.evaluate((node) => {
      const probe = document.createElement("span");
      probe.className = "text-red-300";
      document.body.append(probe);
      const red = getComputedStyle(probe).color;
      probe.remove();
      return { button: getComputedStyle(node).color, red };
    });
    expect(colours.button).toBe(colours.red);
    const classes = (await clear.getAttribute("class")) ?? "";
    expect(classes.split(" ")).toContain("text-red-300");
    expect(classes.split(" ")).not.toContain("text-zinc-300");

    await admin.getByRole("tab", { name: "Governance" }).click();
    await admin.getByRole("button", { name: "Create Proposal" }).click();
    await waitForToast(admin, "Missing Fields", "Please fill out all required fields");
    const titleError = admin.locator('[data-field-error="title"]');
    const descriptionError = admin.locator('[data-field-error="description"]');
    expect((await titleError.textContent())?.length).toBeGreaterThan(0);
    expect((await descriptionError.textContent())?.length).toBeGreaterThan(0);

    // Typing a title clears its error at once (no new submit); the description's stays.
    await admin.getByLabel("Title").pressSequentially("Lanterns", { delay: 20 });
    await expect.poll(() => titleError.textContent()).toBe("");
    expect((await descriptionError.textContent())?.length).toBeGreaterThan(0);
    // Emptying it again shows the error again, still without a submit (and without a toast per keystroke).
    const toastsBefore = await admin.locator("li[data-variant]").filter({ hasText: "Missing Fields" }).count();
    await admin.getByLabel("Title").fill("");
    await expect.poll(async () => (await titleError.textContent())?.length ?? 0).toBeGreaterThan(0);
    expect(await admin.locator("li[data-variant]").filter({ hasText: "Missing Fields" }).count()).toBeLessThanOrEqual(toastsBefore);
  });
});
