/**
 * "Verify votes" in a real browser: real signed votes (both message magics) are checked in the page and the
 * tally recomputed; an answer tampered with on its way (Playwright route interception) is caught and the
 * vote named; the view passes axe; and its code is loaded only when it is opened (nothing on `/`).
 */
import AxeBuilder from "@axe-core/playwright";
import { hexToBytes } from "@noble/hashes/utils.js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { voteMessage } from "../../app/domain/messages.ts";
import { signMessage } from "../../app/domain/signature.ts";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { atTime } from "./support/clock.ts";
import { startE2eWorld, type E2eWorld, type TestWallet } from "./support/e2e-server.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let proposal: Proposal;

async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(20_000);
  opened.push({ context, problems });
  return page;
}

async function vote(wallet: TestWallet, optionId: number, magic: "bitcoin" | "dogecoin") {
  const message = voteMessage(proposal.id, proposal.title, optionId, new Date());
  const signature = signMessage(hexToBytes(wallet.privateKeyHex), message, { magic });
  await castVote(world.db.sql, { proposalId: proposal.id, optionId, address: wallet.address, message, signature });
}

async function openVerifyView(page: Page) {
  await page.goto("/governance");
  const card = page.getByTestId("proposal-card").filter({ has: page.getByRole("heading", { name: proposal.title, exact: true }) });
  await card.getByRole("link", { name: "View Details" }).click();
  const dialog = page.getByRole("dialog", { name: proposal.title });
  await dialog.getByRole("button", { name: "Verify votes" }).click();
  await dialog.getByTestId("verify-result").waitFor();
  return dialog;
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
  const now = Date.now();
  const otherItems = world.items.filter((item) => !world.holderItems.includes(item)).slice(0, 2);
  await atTime(now - 5 * DAY, async () => {
    const sql = world.db.sql;
    await stakeItems(
      sql,
      world.holder.address,
      await findItems(
        sql,
        world.holderItems.map((item) => item.inscriptionId),
      ),
    );
    await stakeItems(
      sql,
      world.other.address,
      await findItems(
        sql,
        otherItems.map((item) => item.inscriptionId),
      ),
    );
  });
  proposal = await atTime(now - 2 * HOUR, () =>
    createProposal(
      world.db.sql,
      {
        title: "Open the crypt on Fridays",
        description: "Should the crypt open every Friday?",
        startDate: new Date(now - HOUR),
        endDate: new Date(now + 3 * DAY),
        voteType: "yes_no",
        createdBy: world.admin.address,
      },
      { kind: "web", address: world.admin.address },
    ),
  );
  const [yes, no] = proposal.options;
  await vote(world.holder, yes.id, "bitcoin");
  await vote(world.other, no.id, "dogecoin");
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("Verify votes", () => {
  test("checks every signature in the browser and recomputes the published tally; passes axe", async () => {
    const page = await open();
    const dialog = await openVerifyView(page);
    await dialog.getByRole("status").filter({ hasText: "Verified" }).waitFor();
    await dialog.getByText("2 votes: every signature and message checks out, and the tally matches the published results.").waitFor();
    const rows = dialog.getByRole("table").getByRole("row");
    expect(await rows.allInnerTexts()).toEqual(["Option\tReceipts\tPublished", "Yes\t6\t6", "No\t2\t2"]);
    expect(await dialog.getByTestId("failed-votes").count()).toBe(0);

    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).setLegacyMode(true).analyze();
    const serious = results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);

    await dialog.getByRole("button", { name: "Back to the proposal" }).click();
    await dialog.getByRole("button", { name: "Verify votes" }).waitFor();
  });

  test("an answer tampered with on its way (option, signature, power) is caught and each vote named", async () => {
    const page = await open();
    const [yes, no] = proposal.options;
    await page.route(`**/api/proposals/${proposal.id}/votes*`, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { votes: { address: string; option: number; signature: string; votingPower: number }[] };
      const [holderVote, otherVote] = body.votes;
      holderVote.option = no.id; // counted for another option than the one signed
      otherVote.votingPower = 5; // more power than its listed items
      const bytes = Buffer.from(otherVote.signature, "base64");
      bytes[20] ^= 1;
      otherVote.signature = bytes.toString("base64"); // and a forged signature
      await route.fulfill({ response, json: body });
    });
    const dialog = await openVerifyView(page);
    await dialog.getByRole("alert").filter({ hasText: "Not verified" }).waitFor();
    await dialog.getByText("2 of 2 votes do not check out; the tally differs from the published results.").waitFor();
    const failed = dialog
      .getByTestId("failed-votes")
      .getByRole("listitem")
      .filter({ hasText: /^Vote \d/ });
    const texts = await failed.allInnerTexts();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain(`Vote 1: ${world.holder.address}`);
    expect(texts[0]).toContain(`The signed message names option ${yes.id}, the vote counts option ${no.id}`);
    expect(texts[1]).toContain(`Vote 2: ${world.other.address}`);
    expect(texts[1]).toMatch(/Signature does not check out/);
    expect(texts[1]).toContain("Voting power 5, but 2 staked items listed");
    expect(await dialog.getByTestId("tally-differences").innerText()).toContain('"Yes": 6 published, 0 in the receipts');
  });

  test("its code loads only when the view opens (its view and its worker): nothing of it on / or on /governance before", async () => {
    const page = await open();
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await page.goto("/");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.waitForLoadState("load");
    await page.goto("/governance");
    await page.getByTestId("proposal-card").first().waitFor();
    await page.waitForLoadState("load");
    expect(scripts.filter((script) => script.includes("verify-votes"))).toEqual([]);
    await openVerifyView(page);
    // The view's own chunk, and the Web Worker that checks the signatures off the main thread.
    const loaded = scripts.filter((script) => script.includes("verify-votes"));
    expect(loaded.map((script) => script.replace(/-[\w-]{8}\.js$/, ".js")).sort()).toEqual([
      "/assets/verify-votes.js",
      "/assets/verify-votes.worker.js",
    ]);
  });
});
