/**
 * "Verify this draw" in a real browser: a version-2 giveaway with three winners, drawn by the indexer's
 * pass, verifies from GET /api/giveaways/{id}/draw alone; an answer tampered on its way (Playwright route)
 * shows the first step that disagrees; a closed, undrawn giveaway is "not drawn yet"; the view passes axe.
 * Prints the in-browser verification time of a draw with 10,000 entries (a figure, not an assertion).
 */
import { AxeBuilder } from "@axe-core/playwright";
import { createHash } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { commitmentOf, drawWinnersV2, type PublishedDraw } from "../../app/domain/draw.ts";
import { enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { selectWinners } from "../../indexer/draws.server.ts";
import { createOrdClient } from "../../indexer/ord-client.server.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, testWallet, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
const ids = { drawn: 0, drawing: 0, empty: 0 };

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 2, perCollection: 4 }), launchBrowser()]);
  const entrants = [world.holder, world.other, testWallet("verify-a"), testWallet("verify-b")];
  const drawn = await world.createGiveaway({
    title: "Three Lanterns",
    description: "Three winners",
    pointsCost: 10,
    endDate: new Date(Date.now() + 86_400_000),
    winners: 3,
  });
  const drawing = await world.createGiveaway({
    title: "Pending Pumpkin",
    description: "Drawing soon",
    pointsCost: 10,
    endDate: new Date(Date.now() + 86_400_000),
  });
  for (const [index, wallet] of entrants.entries()) {
    await world.addPoints(wallet.address, 1000);
    await enterGiveaway(world.db.sql, { giveawayId: drawn.id, address: wallet.address, tickets: index + 2 });
    await enterGiveaway(world.db.sql, { giveawayId: drawing.id, address: wallet.address, tickets: 1 });
  }
  expect(await world.draw(drawn.id)).toHaveLength(3);
  world.server.context.config.ordUrl = world.chain.url;
  const client = createOrdClient({ baseUrl: world.chain.url, retries: 0 });
  await selectWinners(world.db.sql, client, drawing.id, { kind: "system" }).finally(() => client.close());
  const empty = await world.createGiveaway({
    title: "Nobody Yet",
    description: "Open, no entries",
    pointsCost: 10,
    endDate: new Date(Date.now() + 86_400_000),
  });
  Object.assign(ids, { drawn: drawn.id, drawing: drawing.id, empty: empty.id });
}, 240_000);

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
});

async function open(): Promise<{ page: Page; apiCalls: string[] }> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(20_000);
  opened.push({ context, problems });
  const apiCalls: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/api/")) apiCalls.push(url.pathname);
  });
  return { page, apiCalls };
}

const verdict = (page: Page) => page.getByTestId("draw-verdict");

async function expectAccessible(page: Page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const serious = results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** Serves GET /api/giveaways/{id}/draw changed by `tamper` (the real answer, altered on its way). */
async function tamperWith(page: Page, id: number, tamper: (draw: PublishedDraw) => PublishedDraw) {
  await page.route(`**/api/giveaways/${id}/draw`, async (route) => {
    const response = await route.fetch();
    const draw = (await response.json()) as PublishedDraw;
    await route.fulfill({ response, json: tamper(draw) });
  });
}

describe("Verify this draw", () => {
  test("a true draw verifies in the browser from the published draw alone, and the view passes axe", async () => {
    const { page, apiCalls } = await open();
    await page.goto(`/giveaways/${ids.drawn}/verify`);
    await page.getByRole("heading", { level: 1, name: "Verify this draw" }).waitFor();
    await expect.poll(() => verdict(page).getAttribute("data-outcome")).toBe("verified");
    await verdict(page).getByText("Verified: every step of this draw checks out").waitFor();
    const steps = page.getByTestId("draw-step");
    expect(await steps.count()).toBe(7);
    expect(await page.locator('[data-testid="draw-step"][data-ok="false"]').count()).toBe(0);
    await steps.filter({ hasText: "Winner 3" }).waitFor();
    // When entries closed, and where to check that the draw block was mined after it.
    const { blockHeight, closedAt } = (await (await fetch(`${world.url}/api/giveaways/${ids.drawn}/draw`)).json()) as PublishedDraw;
    expect(closedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await page.getByText(`Check that block ${blockHeight} was mined after entries closed at ${closedAt}`).waitFor();
    await page.getByText("Entries closed at", { exact: true }).waitFor();
    expect(await page.getByTestId("block-explorer-link").getAttribute("href")).toBe(`https://blockchair.com/dogecoin/block/${blockHeight}`);
    expect(apiCalls.filter((call) => call.startsWith("/api/giveaways"))).toEqual([`/api/giveaways/${ids.drawn}/draw`]);
    await expectAccessible(page);
    expect(opened.at(-1)!.problems.errors).toEqual([]);
  }, 120_000);

  test("a tampered answer shows the first step that disagrees", async () => {
    const cases: [string, (draw: PublishedDraw) => PublishedDraw, string][] = [
      ["seed", (draw) => ({ ...draw, seed: "11".repeat(32) }), "The seed matches the commitment"],
      [
        "entry order",
        (draw) => ({ ...draw, entries: [...draw.entries].reverse() }),
        "Entries are one per address, in ascending address order",
      ],
      ["winners", (draw) => ({ ...draw, winnerAddresses: [...draw.winnerAddresses].reverse() }), "Winner 1"],
    ];
    for (const [what, tamper, step] of cases) {
      const { page } = await open();
      await tamperWith(page, ids.drawn, tamper);
      await page.goto(`/giveaways/${ids.drawn}/verify`);
      await expect.poll(() => verdict(page).getAttribute("data-outcome"), { message: what }).toBe("failed");
      await verdict(page).getByText("This draw does not check out").waitFor();
      expect(await page.getByTestId("failed-step").textContent(), what).toBe(step);
      if (what === "seed") await expectAccessible(page);
    }
  }, 120_000);

  test("a closed giveaway not drawn yet: every step so far checks out, its draw block is shown", async () => {
    const { page } = await open();
    await page.goto(`/giveaways/${ids.drawing}/verify`);
    await expect.poll(() => verdict(page).getAttribute("data-outcome")).toBe("pending");
    const { blockHeight } = (await (await fetch(`${world.url}/api/giveaways/${ids.drawing}/draw`)).json()) as PublishedDraw;
    await page.getByText(`Block ${blockHeight}: its hash is read once 6 blocks sit on top of it.`).waitFor();
    // Issue 33, item 10: the steps that have nothing to check yet say so, never "✓ agrees".
    const step = (title: string) => page.getByTestId("draw-step").filter({ hasText: title });
    expect(await step("The seed matches the commitment").getAttribute("data-pending")).toBe("true");
    expect(await step("The seed matches the commitment").getByText("… pending").count()).toBe(1);
    expect(await step("The draw block").getByText("… pending").count()).toBe(1);
    expect(await step("Entries are one per address").getByText("✓ agrees").count()).toBe(1);
    // Not in demo mode: no word of a simulated chain.
    expect(await page.getByTestId("simulated-chain").count()).toBe(0);
    await expectAccessible(page);

    // An open giveaway nobody entered: "No entries yet", in the verdict and the table.
    await page.goto(`/giveaways/${ids.empty}/verify`);
    await verdict(page).getByText("No entries yet: there is nothing to draw from so far.").waitFor();
    await page.getByTestId("no-entries").getByText("No entries yet").waitFor();
  }, 120_000);

  test("a holder's rewards page: 'Drawing at block {H}' on a closed card, and 'Verify this draw' leads to the view, with their own row", async () => {
    const { page } = await open();
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex });
    await page.goto("/rewards");
    await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("tab", { name: "All Giveaways" }).click();
    const card = (id: number) => page.locator(`[data-testid="giveaway-card"][data-giveaway-id="${id}"]`);
    const { blockHeight } = (await (await fetch(`${world.url}/api/giveaways/${ids.drawing}/draw`)).json()) as PublishedDraw;
    await card(ids.drawing).getByTestId("drawing-at").getByText(`Drawing at block ${blockHeight}`, { exact: true }).waitFor();
    expect(
      await card(ids.drawing)
        .getByRole("button", { name: /Enter Giveaway|Add More Tickets/ })
        .isDisabled(),
    ).toBe(true);
    await card(ids.drawn).getByText("Winners:").waitFor();
    await card(ids.drawn).getByText("Provably fair draw").click();
    await card(ids.drawn)
      .getByRole("link", { name: /^Verify this draw\s?: Three Lanterns$/ })
      .click();
    await page.waitForURL(`**/giveaways/${ids.drawn}/verify`);
    await expect.poll(() => verdict(page).getAttribute("data-outcome")).toBe("verified");
    await page.getByTestId("your-entry").getByText("Your entry: 2 tickets", { exact: false }).waitFor();
    await expectAccessible(page);
  }, 120_000);

  test("figure: in-browser verification of a draw with 10,000 entries (printed)", async () => {
    const seed = createHash("sha256").update("bench-seed").digest("hex");
    const blockHash = createHash("sha256").update("bench-block").digest("hex");
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ address: `D${String(i).padStart(33, "0")}`, tickets: 1 + (i % 50) }));
    const figures: string[] = [];
    for (const winners of [1, 10]) {
      const draw: PublishedDraw = {
        version: 2,
        commitment: commitmentOf(seed),
        seed,
        blockHeight: 5_000_100,
        closedAt: "2031-01-01T00:00:00.000Z",
        blockHash,
        winners,
        entries,
        winnerAddresses: drawWinnersV2(seed, blockHash, entries, winners).map((pick) => pick.address),
      };
      const { page } = await open();
      await tamperWith(page, ids.drawn, () => draw);
      await page.goto(`/giveaways/${ids.drawn}/verify`);
      await expect.poll(() => verdict(page).getAttribute("data-outcome")).toBe("verified");
      figures.push(`${winners} winner(s): ${await page.getByTestId("verify-ms").textContent()} ms`);
    }
    console.log(
      `[figure] in-browser verification, 10,000 entries (${entries.reduce((s, e) => s + e.tickets, 0)} tickets): ${figures.join("; ")}`,
    );
  }, 120_000);
});
