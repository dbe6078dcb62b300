/**
 * Issue 33: one journey, no seams, in a real browser at 1280 and at 360 px wide, as a holder goes through it:
 * stake, enter, win, follow the notification, claim, unstake with its confirmation. At every step what the page
 * says is what happens: the rates shown are the boosted ones the accrual credits (item 3), what is signed is
 * shown whole (item 4), every time of day carries its zone (item 5: the browser is in New York here), the win's
 * notification leads to the claim dialog (item 2), and the unstake asks first, naming its cost, before any
 * wallet opens (item 1). At 360 px no step scrolls sideways.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { formatTime } from "../../app/domain/format.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { injectMyDoge, launchBrowser, waitForToast, type MyDogeHandle } from "./support/browser.ts";
import { atTime } from "./support/clock.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { usePages } from "./support/pages.ts";

const DAY = 24 * HOUR_MS;
const ZONE = "America/New_York";
const SIZES = [
  { name: "1280 px", viewport: { width: 1280, height: 800 } },
  { name: "360 px", viewport: { width: 360, height: 740 } },
] as const;

let browser: Browser;
const pages = usePages();

beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** The demo catalogue's first items: Spooks #1 Common, #4 Legendary; Spook Society #5 Epic. */
const inscription = (world: E2eWorld, collection: "spooks" | "spook-society", number: number) =>
  world.items.find((item) => item.collection === collection && item.number === number)!.inscriptionId;

/**
 * A world where boosts are in force (Legendary 150%, Epic 130%, 7 days 110%, 30 days 120%, cap 200%, since 40 days),
 * the holder has Spooks #4 (Legendary) staked 34 days and Spooks #1 (Common) 10 days, 1,000 points, and one giveaway
 * is open.
 */
async function journeyWorld(): Promise<{ world: E2eWorld; giveawayId: number }> {
  const world = await startE2eWorld({ perCollection: 8, holderOwns: 6 });
  const sql = world.db.sql;
  const start = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 40 * DAY);
  await sql`
    insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
    values (${start}, 100, 110, 130, 150, ${sql.json([
      { days: 7, percent: 110 },
      { days: 30, percent: 120 },
    ])}, 200, 'test', ${start})`;
  const now = Date.now();
  await atTime(now - 34 * DAY, async () => stakeItems(sql, world.holder.address, await findItems(sql, [inscription(world, "spooks", 4)])));
  await atTime(now - 10 * DAY, async () => stakeItems(sql, world.holder.address, await findItems(sql, [inscription(world, "spooks", 1)])));
  await world.addPoints(world.holder.address, 1000);
  const giveaway = await world.createGiveaway({
    title: "Lantern Night",
    description: "A lantern that glows for a year.",
    pointsCost: 100,
    endDate: new Date(now + 2 * DAY),
    imageUrl: world.upload("lantern.svg", "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='3'/>"),
  });
  return { world, giveawayId: giveaway.id };
}

const card = (page: Page, name: string) =>
  page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });

/** At a phone's width nothing may scroll sideways. */
async function fitsTheScreen(page: Page, step: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${step}: the page is ${scrollWidth} px wide on a ${innerWidth} px screen`).toBeLessThanOrEqual(innerWidth);
}

/** The element's text is shown whole: not cut, not scrolled, inside the screen. */
async function shownWhole(page: Page, testId: string) {
  // Measured once the dialog's opening animation is over.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((animation) => animation.playState !== "running" || animation.effect?.getTiming().iterations === Infinity),
  );
  const box = await page.getByTestId(testId).evaluate((element) => {
    const rect = element.getBoundingClientRect();
    return { overflow: element.scrollWidth - element.clientWidth, left: rect.left, right: rect.right, width: window.innerWidth };
  });
  expect(box.overflow, `${testId} overflows its box`).toBeLessThanOrEqual(0);
  expect(box.left).toBeGreaterThanOrEqual(0);
  expect(box.right).toBeLessThanOrEqual(box.width);
}

async function openHolder(world: E2eWorld, viewport: { width: number; height: number }): Promise<{ page: Page; mydoge: MyDogeHandle }> {
  // With motion, as most holders see the site (every other browser test's visitor prefers reduced motion).
  const { page } = await pages.open(browser, world.url, { viewport, timezoneId: ZONE, reducedMotion: "no-preference" });
  page.setDefaultTimeout(15_000);
  const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
  return { page, mydoge };
}

describe("one journey, no seams (issue 33)", () => {
  for (const { name, viewport } of SIZES) {
    test(`at ${name}: stake, enter, win, follow the notification, claim, unstake with its confirmation`, async () => {
      const { world, giveawayId } = await journeyWorld();
      try {
        const { page, mydoge } = await openHolder(world, viewport);
        const phone = viewport.width < 400;

        // --- What it earns: the boosted rates, one figure everywhere (item 3) -------------------------------
        await page.goto("/");
        const legendary = card(page, "Spooks #4");
        // Tier 1 (100 a day), Legendary 150% × 34 days 120% = 180%: the card's headline is its parts' total.
        await legendary.getByTestId("item-rate").getByText("+180 SPOOK/day", { exact: true }).waitFor();
        expect(await legendary.getByTestId("item-rate-parts").textContent()).toBe("100/day × Legendary 150% × 30 days 120% = 180/day");
        // Spooks #1, 10 days: 110. The day's rate is 290, and so says the API the accrual's rule is checked against.
        await page.getByTestId("daily-rate").getByText("+290 SPOOK", { exact: true }).waitFor();
        const rewards = await (await fetch(`${world.url}/api/rewards/${world.holder.address}`)).json();
        expect(rewards.dailyRate).toBe(290);
        expect(rewards.currentHour.points * 24).toBeCloseTo(290, 9);
        // The Boosts section says what is in force.
        await page.getByTestId("boosts-card").getByText("Legendary", { exact: true }).waitFor();
        // The ghost of a card without its picture floats twice, then rests: a wallet of 888 such cards is not 888
        // animations drawn for as long as the page is open.
        const ghost = legendary.getByTestId("item-placeholder").locator("svg");
        expect(await ghost.evaluate((icon) => getComputedStyle(icon).animationIterationCount)).toBe("2");
        if (phone) await fitsTheScreen(page, "staking page");

        // --- Stake: the dialog shows the boosted change and the whole message (items 3, 4) ------------------
        await card(page, "Spook Society #5").getByRole("button", { name: "Stake Spook Society #5" }).click();
        const stakeDialog = page.getByRole("dialog", { name: "Stake Your Spook" });
        await stakeDialog.waitFor();
        // An Epic at 130% at tier 1: +130 a day; 290 → 420.
        await stakeDialog.getByTestId("stake-item-rate").getByText("+130 SPOOK per day").waitFor();
        expect(await stakeDialog.getByTestId("stake-daily-change").textContent()).toBe("290 → 420 SPOOK/day");
        const message = (await stakeDialog.getByTestId("stake-message").textContent()) ?? "";
        expect(message).toMatch(/^Staking Spook #5 for Spook Points\. Timestamp: \d{4}-\d\d-\d\dT[\d:.]+Z$/);
        await shownWhole(page, "stake-message");
        await shownWhole(page, "stake-message-meaning");
        if (phone) await fitsTheScreen(page, "stake dialog");
        await stakeDialog.getByRole("button", { name: "Sign & Stake" }).click();
        // The toast says when it starts to earn, on the holder's clock with its zone (items 2, 5).
        const nextHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
        await waitForToast(page, "Spook Staked!", `Spook Society #5 is staked: it earns from ${formatTime(nextHour, { timeZone: ZONE })}.`);
        expect(mydoge.signed.at(-1)).toBe(message);
        await card(page, "Spook Society #5").getByTestId("item-rate").getByText("+130 SPOOK/day", { exact: true }).waitFor();
        await page.getByTestId("daily-rate").getByText("+420 SPOOK", { exact: true }).waitFor();

        // --- Enter the giveaway ------------------------------------------------------------------------------
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Rewards" }).click();
        const giveawayCard = page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${giveawayId}"]`).first();
        await giveawayCard.getByRole("button", { name: "Enter Giveaway" }).click();
        const enterDialog = page.getByRole("dialog");
        await enterDialog.getByRole("button", { name: "One ticket more" }).click();
        await enterDialog.getByRole("button", { name: "Enter Giveaway" }).click();
        await waitForToast(page, "Entry Successful!", "You've entered the giveaway with 2 tickets.");
        if (phone) await fitsTheScreen(page, "rewards page");

        // --- Win: the draw; the verify page offers Claim to the winner (item 2) -------------------------------
        expect(await world.draw(giveawayId)).toEqual([world.holder.address]);
        await page.goto(`/giveaways/${giveawayId}/verify`);
        await page.getByTestId("claim-your-prize").getByRole("button", { name: "Claim your prize" }).waitFor();
        if (phone) await fitsTheScreen(page, "verify page");

        // --- Follow the notification: the bell's win leads to the claim dialog (item 2) ----------------------
        await page.getByRole("button", { name: /^Notifications, \d+\+? new$/ }).click();
        const won = page.getByRole("menuitem", { name: /You won: Lantern Night\. Claim your prize/ });
        await won.waitFor();
        if (phone) await fitsTheScreen(page, "the bell");
        await won.click();
        await page.waitForURL(/\/rewards(\?|$)/);
        const claimDialog = page.getByRole("dialog", { name: "Claim your prize" });
        await claimDialog.waitFor();
        await claimDialog.getByLabel("How can the admin reach you?").fill("lantern-winner@example.com");
        // The exact text the wallet signs (item 4).
        const claimText = (await claimDialog.getByTestId("claim-message").textContent()) ?? "";
        expect(claimText).toMatch(
          new RegExp(
            `^Claim Lantern Night \\(#${giveawayId}\\) for ${world.holder.address}\\. Contact: lantern-winner@example\\.com\\. Timestamp: \\S+Z$`,
          ),
        );
        await shownWhole(page, "claim-message");
        if (phone) await fitsTheScreen(page, "claim dialog");
        await claimDialog.getByRole("button", { name: "Sign and Claim" }).click();
        await waitForToast(page, "Prize Claimed");
        expect(mydoge.signed.at(-1)).toBe(claimText);
        // The success is the last word: no "Prize already claimed" follows it, and the link's parameter is gone.
        await page.waitForURL((url) => !url.searchParams.has("claim"));
        await page.waitForTimeout(1500);
        expect(await page.locator("li[data-variant]").filter({ hasText: "Prize already claimed" }).count()).toBe(0);
        await page
          .getByTestId("prize-claimed")
          .getByText(/^Prize claimed on [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d E[SD]T$/)
          .waitFor();

        // --- Unstake: it asks first, naming its cost, before any wallet opens (item 1) -----------------------
        await page.goto("/");
        const signedBefore = mydoge.signed.length;
        await card(page, "Spooks #4").getByRole("button", { name: "Unstake Spooks #4" }).click();
        const confirm = page.getByRole("alertdialog", { name: "Unstake Spooks #4?" });
        await confirm.waitFor();
        await confirm.getByText(/Resets tenure: 34 days, 120% → 100%\./).waitFor();
        // 180 + 110 + 130 = 420 → 110 + 130 = 240.
        await confirm
          .getByTestId("confirm-note")
          .getByText(/420 → 240 SPOOK\/day\.$/)
          .waitFor();
        if (phone) await fitsTheScreen(page, "unstake confirmation");
        expect(mydoge.signed.length, "no wallet popup before the confirmation").toBe(signedBefore);
        await confirm.getByRole("button", { name: "Unstake" }).click();
        await waitForToast(page, "Success!", "Unstaking request completed successfully");
        expect(mydoge.signed.at(-1)).toMatch(/^Unstaking Spook #4 from SPOOK Points\. Timestamp: /);
        await card(page, "Spooks #4").getByRole("button", { name: "Stake Spooks #4" }).waitFor();
        await page.getByTestId("daily-rate").getByText("+240 SPOOK", { exact: true }).waitFor();
      } finally {
        await world.close();
      }
    }, 240_000);
  }
});
