/**
 * Issue 33, item 7 (and 8's "never Active"): the admin panel is as able as the API, in a real browser.
 * - the proposal form has "Allow vote changes" and a quorum, and the proposal is created with them;
 * - Boosts: each field's rule beside it, a mistake named under its field in plain words before anything is sent,
 *   a row per tenure step, and an upcoming schedule cancelled from the schedules' table;
 * - Notifications: a channel that cannot send is not "Active"; deliveries say what happened in words.
 * One server and one admin page for the file; the tests run in order.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { injectMyDoge, launchBrowser, newPage, waitForToast, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
let page: Page;
/** One admin page for the whole file (the tests build on each other); its console errors fail the file. */
const opened: { context: BrowserContext; problems: PageProblems }[] = [];

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ perCollection: 4, holderOwns: 2 }), launchBrowser()]);
}, 300_000);
afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

async function adminPage(): Promise<Page> {
  const opening = await newPage(browser, world.url);
  opened.push(opening);
  const admin = opening.page;
  admin.setDefaultTimeout(20_000);
  await injectMyDoge(admin, { privateKeyHex: world.admin.privateKeyHex });
  await admin.goto("/admin");
  await admin.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
  await admin.getByRole("tab", { name: "User Points" }).waitFor();
  return admin;
}

/** 'yyyy-MM-ddTHH:mm' in the browser's local time, `ms` from now. */
const localInput = (ms: number) =>
  page.evaluate((offset) => {
    const date = new Date(Date.now() + offset);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }, ms);

describe("the admin panel is as able as the API (issue 33, item 7)", () => {
  test("the proposal form: 'Allow vote changes' and a quorum in percent", async () => {
    page = await adminPage();
    await page.getByRole("tab", { name: "Governance" }).click();
    await page.getByLabel("Title").fill("Keep the lanterns lit");
    await page.getByLabel("Description").fill("All winter long.");
    await page.getByLabel("Start Date").fill(await localInput(3_600_000));
    await page.getByLabel("End Date").fill(await localInput(2 * 86_400_000));
    await page.getByLabel("Allow vote changes").check();
    await page.getByLabel("Quorum", { exact: true }).selectOption("percent");
    await page.getByLabel("Quorum: percent").fill("30");
    await page.getByRole("button", { name: "Create Proposal" }).click();
    await waitForToast(page, "Proposal Created");
    const [proposal] = await world.db.sql<{ allowVoteChange: boolean; quorumKind: string; quorumValue: number }[]>`
      select allow_vote_change, quorum_kind, quorum_value from proposals where title = 'Keep the lanterns lit'`;
    expect(proposal).toEqual({ allowVoteChange: true, quorumKind: "percent", quorumValue: 30 });
  });

  test("Boosts: rules beside the fields, mistakes under their field in plain words, tenure rows, cancel an upcoming schedule", async () => {
    await page.getByRole("tab", { name: "Boosts" }).click();
    const tab = page.getByTestId("boosts-tab");
    await tab.getByText(/^In force: defaults/).waitFor();
    expect(await tab.getByText("Steps of 10, 100-300").count()).toBeGreaterThanOrEqual(5);
    // A mistake is named under its field, and nothing is asked of the server.
    const requests: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/admin/boosts")) requests.push(request.url());
    });
    await tab.getByLabel("Epic %").fill("135");
    await tab.getByLabel("Step 2: days").fill("5");
    await tab.getByRole("button", { name: "Preview" }).click();
    await tab.getByText("Epic must be a whole number from 100 to 300, in steps of 10.").waitFor();
    await tab.getByText("Each step needs more days than the one above (more than 7).").waitFor();
    expect(requests).toEqual([]);
    // Fixed, with a third tenure step added: previewed and saved.
    await tab.getByLabel("Epic %").fill("130");
    await tab.getByLabel("Step 2: days").fill("30");
    await tab.getByRole("button", { name: "Add a tenure step" }).click();
    await tab.getByLabel("Step 3: percent").fill("130");
    await tab.getByRole("button", { name: "Preview" }).click();
    await tab.getByTestId("boosts-preview").waitFor();
    await tab.getByRole("button", { name: "Save" }).click();
    await tab
      .getByRole("status")
      .getByText(/^Saved as version 1\./)
      .waitFor();
    const [saved] = await world.db.sql<{ tenure: unknown }[]>`select tenure from boost_schedules where version = 1`;
    expect(saved.tenure).toEqual([
      { days: 7, percent: 110 },
      { days: 30, percent: 120 },
      { days: 60, percent: 130 },
    ]);
    // Cancelled from the table, after a confirmation: it will not start.
    const upcoming = tab.locator('[data-testid="boost-schedule-row"][data-state="Upcoming"]');
    await upcoming.getByRole("button", { name: "Cancel v1" }).click();
    await page.getByRole("alertdialog", { name: "Cancel boost schedule v1?" }).getByRole("button", { name: "Cancel the schedule" }).click();
    await tab.getByRole("status").getByText("Version 1 cancelled: it will not start.").waitFor();
    await upcoming.waitFor({ state: "detached" });
    const [cancelled] = await world.db.sql<{ n: number }[]>`select count(*)::int as n from boost_schedule_cancellations where version = 1`;
    expect(cancelled.n).toBe(1);
  });

  test("Notifications: a channel that cannot send is not 'Active'; deliveries in words", async () => {
    const [event] = await world.db.sql<{ id: number }[]>`select id from notification_events order by id limit 1`;
    await world.db.sql`
      insert into notification_deliveries (event_id, channel, target, state, attempts, last_status_code, last_error, created_at, next_attempt_at, delivered_at)
      values (${event.id}, 'email', '1', 'delivered', 1, 250, null, now(), now(), now()),
             (${event.id}, 'email', '2', 'retrying', 1, null,
              '3 personal emails went to this wallet in the last 24 hours: held until 2031-01-01T06:12:00.000Z', now(), '2031-01-01T06:12:00Z', null)`;
    await page.getByRole("tab", { name: "Notifications" }).click();
    // No webhook endpoint: the signed webhooks cannot send anywhere.
    await page.getByTestId("channel-webhook").getByTestId("channel-state").getByText("No target: add a webhook endpoint below").waitFor();
    const states = page.getByTestId("delivery-state");
    await expect
      .poll(() => states.allTextContents())
      .toEqual(
        expect.arrayContaining([expect.stringMatching(/^held \(daily limit\) until 06:12 UTC/), expect.stringMatching(/^250 accepted/)]),
      );
  });
});
