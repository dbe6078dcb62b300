/**
 * The points history page (issue 18) in a real browser: reached from the points banner, entries grouped
 * by UTC day with each day's change and closing balance, the balance line drawn by chart.js, the filter by
 * kind (chart.js loaded there only), and the CSV and JSON downloads.
 */
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CSV_HEADER } from "../../app/domain/points-history.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { injectMyDoge, launchBrowser, newPage, screenshot, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let world: E2eWorld;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let hoodieId = 0;

const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const dayOf = (offset: number) => new Date(today.getTime() + offset * DAY).toISOString().slice(0, 10);
const hourOf = (dayOffset: number, hour: number) => new Date(today.getTime() + dayOffset * DAY + hour * HOUR);

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 4 }), launchBrowser()]);
  const { holder } = world;
  // 3 Spooks and 2 Spook Society staked for days: tier 2; hours credited two days ago (one) and yesterday (two).
  await world.db.sql`
    insert into stakes (item_id, address, started_at)
    select id, ${holder.address}, ${hourOf(-3, 0)} from items where name = any(${["Spooks #1", "Spooks #2", "Spooks #3", "Spook Society #1", "Spook Society #2"]})`;
  for (const hour of [hourOf(-2, 10), hourOf(-1, 10), hourOf(-1, 11)]) {
    await creditHour(world.db.sql, { hour, at: new Date(hour.getTime() + HOUR), actor: "system", source: "cli" });
  }
  await world.addPoints(holder.address, 1000);
  const hoodie = await world.createGiveaway({
    title: "Haunted Hoodie",
    description: "Glows in the dark.",
    pointsCost: 100,
    endDate: new Date(Date.now() + DAY),
  });
  hoodieId = hoodie.id;
  await enterGiveaway(world.db.sql, { giveawayId: hoodie.id, address: holder.address, tickets: 2 });

  ({ context, page, problems } = await newPage(browser, world.url));
  page.setDefaultTimeout(15_000);
  await injectMyDoge(page, { privateKeyHex: holder.privateKeyHex, connected: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await world?.close();
  expect(problems?.errors ?? []).toEqual([]);
});

const days = () => page.getByTestId("history-day");
const entriesOf = (day: string) => page.locator(`[data-testid="history-day"][data-day="${day}"] [data-testid="history-entry"]`);

describe("points history page", () => {
  test("the points banner links to it; entries grouped by day, newest first, with each day's change and balance", async () => {
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    const chartChunk = (name: string) => /\/assets\/chart-[\w-]+\.js$/.test(name);
    await page.goto("/rewards");
    await page.getByTestId("banner-points").waitFor();
    expect(scripts.filter(chartChunk), "chart.js is not loaded by the rewards page").toEqual([]);
    await page.getByRole("link", { name: "Points history" }).click();
    await page.waitForURL("**/rewards/history");
    await page.getByRole("heading", { name: "Points History", level: 1 }).waitFor();
    await days().first().waitFor();
    await page.locator('[data-testid="balance-chart"][data-drawn="true"]').waitFor();
    expect(scripts.filter(chartChunk), "the history page loads chart.js").toHaveLength(1);

    expect(await days().evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-day")))).toEqual([
      dayOf(0),
      dayOf(-1),
      dayOf(-2),
    ]);
    expect(await entriesOf(dayOf(0)).evaluateAll((rows) => rows.map((row) => row.getAttribute("data-kind")))).toEqual([
      "giveaway_entry",
      "admin_add",
    ]);
    expect(await entriesOf(dayOf(-1)).count()).toBe(2);
    expect(await entriesOf(dayOf(-2)).count()).toBe(1);

    // 5 items at 120 a day: 25 points an hour. Today: +1,000 - 200; closing balance 75 + 800.
    const summary = (day: string) => page.locator(`[data-testid="history-day"][data-day="${day}"] [data-testid="day-summary"]`);
    expect(await summary(dayOf(0)).textContent()).toBe("+800.00 · balance 875.00");
    expect(await summary(dayOf(-1)).textContent()).toBe("+50.00 · balance 75.00");
    expect(await summary(dayOf(-2)).textContent()).toBe("+25.00 · balance 25.00");
    const accrual = entriesOf(dayOf(-2)).first();
    expect(await accrual.textContent()).toContain("3 Spooks and 2 Spook Society staked, tier 2, 120 points a day each");
    expect(await entriesOf(dayOf(0)).first().textContent()).toContain(`2 tickets in giveaway #${hoodieId} "Haunted Hoodie"`);
    await screenshot(page, "points-history");
  });

  test("draws the balance over time with chart.js", async () => {
    const chart = page.getByTestId("balance-chart");
    await page.locator('[data-testid="balance-chart"][data-drawn="true"]').waitFor();
    const canvas = chart.locator("canvas");
    expect(await canvas.getAttribute("aria-label")).toBe(`Balance over time. Balance from 25.00 on ${dayOf(-2)} to 875.00 on ${dayOf(0)}`);
    // chart.js sized the canvas and painted on it.
    const painted = await canvas.evaluate((node: HTMLCanvasElement) => {
      const context2d = node.getContext("2d");
      if (!context2d || node.width === 0) return 0;
      const pixels = context2d.getImageData(0, 0, node.width, node.height).data;
      let count = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) count++;
      return count;
    });
    expect(painted).toBeGreaterThan(500);
  });

  test("filters by kind", async () => {
    await page.getByLabel("Kind").selectOption("accrual");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-day"]').length === 2);
    expect(await page.getByTestId("history-entry").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-kind")))).toEqual([
      "accrual",
      "accrual",
      "accrual",
    ]);
    await page.getByLabel("Kind").selectOption("giveaway_entry");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-entry"]').length === 1);
    expect(await page.getByTestId("history-entry").getAttribute("data-kind")).toBe("giveaway_entry");
    await page.getByLabel("Kind").selectOption("");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-entry"]').length === 5);
  });

  test("the export buttons download the whole history as CSV and as JSON", async () => {
    const base = `/api/points/${world.holder.address}/history`;
    const csvLink = page.getByRole("link", { name: "Download CSV" });
    expect(await csvLink.getAttribute("href")).toBe(`${base}?format=csv`);
    const [csv] = await Promise.all([page.waitForEvent("download"), csvLink.click()]);
    expect(csv.suggestedFilename()).toBe(`spooks-points-${world.holder.address}.csv`);
    const lines = fs.readFileSync(await csv.path(), "utf8").split("\r\n");
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.slice(1, -1).map((line) => line.split(",")[1])).toEqual(["giveaway_entry", "admin_add", "accrual", "accrual", "accrual"]);

    const jsonLink = page.getByRole("link", { name: "Download JSON" });
    expect(await jsonLink.getAttribute("href")).toBe(`${base}?format=json`);
    const [json] = await Promise.all([page.waitForEvent("download"), jsonLink.click()]);
    expect(json.suggestedFilename()).toBe(`spooks-points-${world.holder.address}.json`);
    const body = JSON.parse(fs.readFileSync(await json.path(), "utf8")) as { entries: { balanceAfter: number }[]; nextCursor: null };
    expect(body.entries.map((entry) => entry.balanceAfter)).toEqual([875, 1075, 75, 50, 25]);
    expect(body.nextCursor).toBeNull();
  });
});
