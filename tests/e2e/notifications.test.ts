/**
 * Notifications in a real browser (issue 24 items 3, 8): the header's bell counts what is newer than the last
 * notification the holder opened (kept in the browser), its panel lists them with their links, and a new event
 * brings the count back; the admin's Notifications tab lists the deliveries with the answer received.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { notificationsFor, notify } from "../../db/queries/notifications.server.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let page: Page;

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 1, perCollection: 2 }), launchBrowser()]);
  await world.addPoints(world.holder.address, 40); // points.adjusted, the holder's own
  await world.createGiveaway({
    title: "Haunted Hoodie",
    description: "Glows.",
    pointsCost: 10,
    endDate: new Date(Date.now() + 3 * 86_400_000),
  });
  await world.addPoints(world.admin.address, 5); // someone else's: never shown to the holder
}, 300_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

const WAIT = { timeout: 20_000, interval: 200 };
const bell = () => page.getByRole("button", { name: /^Notifications/ });

describe("the bell", () => {
  test("counts the new ones, lists them with links, forgets the count once opened, and counts a newer one", async () => {
    const opening = await newPage(browser, world.url);
    opened.push(opening);
    page = opening.page;
    page.setDefaultTimeout(20_000);
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    // What the world's set-up announced to the holder: the giveaway and their 40 points (never the admin's 5).
    const expected = (await notificationsFor(world.db.sql, world.holder.address)).entries;
    expect(expected.map((entry) => entry.title).slice(0, 2)).toEqual(["New giveaway: Haunted Hoodie", "You received 40 points"]);
    expect(expected.map((entry) => entry.title)).not.toContain("You received 5 points");
    await page.goto("/");
    await expect.poll(() => bell().getAttribute("aria-label"), WAIT).toBe(`Notifications, ${expected.length} new`);
    await expect.poll(() => page.getByTestId("notification-count").innerText(), WAIT).toBe(String(expected.length));

    await bell().click();
    const panel = page.getByRole("menu", { name: "Notifications" });
    const items = panel.getByRole("menuitem");
    // The notifications, then the link to the settings (issue 33, item 9).
    await expect.poll(() => items.count(), WAIT).toBe(expected.length + 1);
    expect(await items.last().innerText()).toBe("Notification settings");
    expect(await items.last().getAttribute("href")).toBe("/notifications");
    expect(await items.nth(0).innerText()).toContain("New giveaway: Haunted Hoodie");
    expect(await items.nth(1).innerText()).toContain("You received 40 points");
    expect(await items.nth(0).getAttribute("href")).toBe("/rewards");
    await items.nth(0).click();
    await page.waitForURL("**/rewards");
    await expect.poll(() => bell().getAttribute("aria-label"), WAIT).toBe("Notifications");

    // Kept in the browser: a reload still counts none; a newer event counts one.
    await page.reload();
    await expect.poll(() => bell().getAttribute("aria-label"), WAIT).toBe("Notifications");
    await notify(world.db.sql, [
      { event: "proposal.opened", subject: "e2e-1", title: "Vote open: Lanterns", body: "Voting is open.", link: "/governance" },
    ]);
    await page.reload();
    await expect.poll(() => bell().getAttribute("aria-label"), WAIT).toBe("Notifications, 1 new");
  });
});

describe("the admin's Notifications tab", () => {
  test("lists each channel and the deliveries with their state", async () => {
    const opening = await newPage(browser, world.url);
    opened.push(opening);
    page = opening.page;
    page.setDefaultTimeout(20_000);
    const [event] = await world.db.sql<{ id: number }[]>`select id from notification_events where recipient is null order by id limit 1`;
    await world.db.sql`
      insert into notification_deliveries (event_id, channel, target, state, attempts, last_status_code, last_error, created_at, next_attempt_at)
      values (${event.id}, 'discord', '', 'failed', 1, 404, '404 {"message": "Unknown Webhook", "code": 10015}', now(), now())`;
    await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex });
    await page.goto("/admin");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "Notifications" }).click();
    const row = page.getByTestId("delivery-row").first();
    await expect.poll(() => row.innerText(), WAIT).toContain("Unknown Webhook");
    expect(await row.innerText()).toContain("failed");
    expect(await page.getByTestId("channel-discord").innerText()).toContain("Not configured");
  });
});
