/**
 * /governance in a real browser against the real app and database: tabs with counts and empty texts,
 * cards, every state of the details dialog, a signed vote (the exact message, the toasts, snapshot
 * voting power) and the results doughnut with '(Your vote)'. The proposals and stakes are seeded through
 * db/queries with the clock moved back, so the snapshot (stakes open at a proposal's start) is real.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { DESKTOP, PHONE, injectMyDoge, launchBrowser, newPage, screenshot, waitForToast, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, testWallet, type E2eWorld } from "./support/e2e-server.ts";
import { atTime } from "./support/clock.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const VOTE_MESSAGE = /^Voting on proposal #(\d+): (.+)\. Option: (\d+)\. Timestamp: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];
let active: Proposal;
let completed: Proposal;
let upcoming: Proposal;

/** Runs `work` with the (test process's) clock at `at`: the seeded rows get that time. */

async function stakeAll(address: string, inscriptionIds: string[]) {
  await stakeItems(world.db.sql, address, await findItems(world.db.sql, inscriptionIds));
}

async function open(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  page.setDefaultTimeout(15_000);
  opened.push({ context, problems });
  return page;
}

const card = (page: Page, title: string) =>
  page.getByTestId("proposal-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

async function openDetails(page: Page, title: string) {
  await card(page, title).getByRole("link", { name: "View Details" }).click();
  const dialog = page.getByRole("dialog", { name: title });
  await dialog.waitFor();
  return dialog;
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  for (const { problems } of opened) expect(problems.errors).toEqual([]);
});

describe("governance page", () => {
  test("no proposals: the three tabs show 0 and their empty texts; disconnected voting power box", async () => {
    const page = await open();
    await page.goto("/governance");
    await page.getByRole("heading", { name: "Spook Governance", level: 1 }).waitFor();
    await page.getByText("Connect wallet to view").waitFor();
    const tabs = page.getByRole("tablist", { name: "Proposals by status" });
    await tabs.getByRole("tab", { name: "Active (0)" }).waitFor();
    await page.getByText("No active proposals at this time").waitFor();
    await tabs.getByRole("tab", { name: "Upcoming (0)" }).click();
    await page.getByText("No upcoming proposals at this time").waitFor();
    await tabs.getByRole("tab", { name: "Completed (0)" }).click();
    await page.getByText("No completed proposals at this time").waitFor();
  });

  test("seeded proposals: counts, cards, and the dialog's completed / upcoming / not-connected states", async () => {
    const now = Date.now();
    const holderItems = world.holderItems.map((item) => item.inscriptionId);
    const otherItems = world.items
      .filter((item) => !world.holderItems.includes(item))
      .slice(0, 2)
      .map((item) => item.inscriptionId);
    // Stakes opened 5 days ago: both wallets have power at every proposal's start.
    await atTime(now - 5 * DAY, async () => {
      await stakeAll(world.holder.address, holderItems);
      await stakeAll(world.other.address, otherItems);
    });
    const admin = { kind: "web" as const, address: world.admin.address };
    completed = await atTime(now - 4 * DAY, () =>
      createProposal(
        world.db.sql,
        {
          title: "Adopt the ghost mascot",
          description: "Make the little ghost our official mascot.",
          startDate: new Date(now - 3 * DAY),
          endDate: new Date(now - DAY),
          voteType: "yes_no",
          createdBy: world.admin.address,
        },
        admin,
      ),
    );
    active = await atTime(now - 2 * HOUR, () =>
      createProposal(
        world.db.sql,
        {
          title: "Pick the next Spooky event",
          description:
            "The community treasury can fund one event this season. Choose between a costume contest, a haunted " +
            "scavenger hunt across the Dogecoin chain, and a live pixel-art jam with prizes for the spookiest piece.",
          startDate: new Date(now - HOUR),
          endDate: new Date(now + 3 * DAY),
          voteType: "multiple_choice",
          options: ["Costume contest", "Scavenger hunt", "Pixel-art jam"],
          createdBy: world.admin.address,
        },
        admin,
      ),
    );
    await atTime(now - 3 * HOUR, () =>
      createProposal(
        world.db.sql,
        {
          title: "Add a Spook Society rarity bonus",
          description: "Legendary Spook Society items earn a 10% bonus on top of their tier rate.",
          startDate: new Date(now - 2 * HOUR),
          endDate: new Date(now + 5 * DAY),
          voteType: "yes_no",
          createdBy: world.admin.address,
        },
        admin,
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
        createdBy: world.admin.address,
      },
      admin,
    );
    // Votes already cast: 'other' (2 staked at the start) on both closed and open proposals.
    await atTime(now - 2 * DAY, () =>
      castVote(world.db.sql, {
        proposalId: completed.id,
        optionId: completed.options[0].id,
        address: world.other.address,
        signature: "seed",
        message: "seed",
      }),
    );
    await castVote(world.db.sql, {
      proposalId: active.id,
      optionId: active.options[1].id,
      address: world.other.address,
      signature: "seed",
      message: "seed",
    });

    const page = await open();
    await page.goto("/governance");
    const tabs = page.getByRole("tablist", { name: "Proposals by status" });
    await tabs.getByRole("tab", { name: "Active (2)" }).waitFor();
    await tabs.getByRole("tab", { name: "Upcoming (1)" }).waitFor();
    await tabs.getByRole("tab", { name: "Completed (1)" }).waitFor();

    // Active card: badge, type, 150-character preview, dates, footer.
    const activeCard = card(page, active.title);
    await activeCard.getByText("Active", { exact: true }).waitFor();
    await activeCard.getByText("Multiple Choice").waitFor();
    await activeCard.getByText(`${active.description.slice(0, 150)}...`, { exact: true }).waitFor();
    await activeCard.getByText("Vote now").waitFor();
    const dateText = await activeCard.locator("time").first().textContent();
    expect(dateText).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    await screenshot(page, "governance-disconnected");

    // Not connected: 'Connect wallet to vote'.
    let dialog = await openDetails(page, active.title);
    await dialog.getByText("Connect wallet to vote").waitFor();
    await dialog.getByText("Unique voters").waitFor();
    await page.keyboard.press("Escape");

    // Upcoming.
    await tabs.getByRole("tab", { name: "Upcoming (1)" }).click();
    await card(page, upcoming.title).getByText("Starts soon").waitFor();
    await card(page, upcoming.title).getByText("Yes/No Vote").waitFor();
    dialog = await openDetails(page, upcoming.title);
    await dialog.getByText("Voting hasn't started yet").waitFor();
    await page.keyboard.press("Escape");

    // Completed: closed, with results.
    await tabs.getByRole("tab", { name: "Completed (1)" }).click();
    await card(page, completed.title).getByText("Voting ended").waitFor();
    dialog = await openDetails(page, completed.title);
    await dialog.getByText("Voting has ended").waitFor();
    await dialog.getByText("This proposal is now closed for voting.").waitFor();
    await dialog.getByTestId("results-total").getByText("2").waitFor();
    await dialog.getByRole("listitem").filter({ hasText: "Yes" }).getByText("100%").waitFor();
  });

  test("a holder signs and submits a vote, then sees the results with '(Your vote)'", async () => {
    const page = await open();
    const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto("/governance");
    await page.getByTestId("voting-power").getByText("6").waitFor();
    await page.getByText("Based on staked Spooks").waitFor();
    await screenshot(page, "governance");

    const dialog = await openDetails(page, active.title);
    await dialog.getByText("Your voting power: 6").waitFor();
    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await waitForToast(page, "Unable to vote", "Please select an option first.");
    expect(mydoge.signed).toEqual([]);

    // Keyboard: focus stays inside the dialog, and an option is chosen with the keyboard.
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      expect(await dialog.evaluate((node) => node.contains(document.activeElement))).toBe(true);
    }
    const costume = dialog.getByRole("radio", { name: "Costume contest" });
    await costume.focus();
    await page.keyboard.press("Space");
    expect(await costume.getAttribute("aria-checked")).toBe("true");

    // A declined signature: 'Signature failed'.
    await mydoge.setBehaviour(page, { rejectSign: true });
    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await waitForToast(page, "Signature failed", "Failed to sign the vote message. Please try again.");
    await mydoge.setBehaviour(page, { rejectSign: false });

    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await dialog.getByRole("button", { name: "Submit Vote" }).click();
    await waitForToast(page, "Vote submitted successfully", "Your vote has been recorded.");

    // The exact message: proposal number, title, option id.
    const message = mydoge.signed.at(-1)!;
    const match = VOTE_MESSAGE.exec(message);
    expect(match?.slice(1, 4)).toEqual([String(active.id), active.title, String(active.options[0].id)]);

    await dialog.getByText("You've already voted").waitFor();
    await dialog.getByText("You voted for option: Costume contest").waitFor();
    // Weighted by snapshot power: holder 6 (3 of each collection) + other 2.
    await dialog.getByTestId("results-total").getByText("8").waitFor();
    const canvas = dialog.locator("canvas");
    expect(
      await canvas.evaluate((node: HTMLCanvasElement) => [node.style.width || `${node.width}px`, node.style.height || `${node.height}px`]),
    ).toEqual(["300px", "300px"]);
    // Legend: votes descending, rounded percent, count, '(Your vote)'.
    const rows = dialog.getByRole("list", { name: "Results by option" }).getByRole("listitem");
    expect(await rows.allTextContents()).toEqual([
      "Costume contest(Your vote)75%6 votes",
      "Scavenger hunt25%2 votes",
      "Pixel-art jam0%0 votes",
    ]);
    // The slices over 5% carry a label: pixels drawn by the inline plugin differ from the ring colour.
    await page.waitForTimeout(400);
    await screenshot(page, "governance-results");

    const [vote] = await world.db.sql<{ weight: number; optionId: number }[]>`
      select weight, option_id from votes where proposal_id = ${active.id} and address = ${world.holder.address}`;
    expect(vote).toEqual({ weight: 6, optionId: active.options[0].id });
  });

  test("a wallet without staked Spooks sees 'No voting power'", async () => {
    const page = await open();
    await injectMyDoge(page, { privateKeyHex: testWallet("no-power").privateKeyHex, connected: true });
    await page.goto("/governance");
    await page.getByTestId("voting-power").getByText("0").waitFor();
    const dialog = await openDetails(page, active.title);
    await dialog.getByText("No voting power").waitFor();
    await dialog.getByText("You need to have Spooks staked to participate in governance votes.").waitFor();
    expect(await dialog.getByRole("button", { name: "Sign and Vote" }).count()).toBe(0);
  });

  test("the voting power box is as tall disconnected, loading and loaded: the proposals below never move under a click", async () => {
    // Where the tabs (and the cards under them) sit in the page's main content, whatever the header shows.
    const tabsOffset = async (page: Page) => {
      const [main, tabs] = await Promise.all([
        page.getByRole("main").boundingBox(),
        page.getByRole("tablist", { name: "Proposals by status" }).boundingBox(),
      ]);
      return tabs!.y - main!.y;
    };
    for (const viewport of [DESKTOP, PHONE]) {
      const signedOut = await open();
      await signedOut.setViewportSize(viewport);
      await signedOut.goto("/governance");
      await signedOut.getByText("Connect wallet to view").waitFor();
      const disconnected = await tabsOffset(signedOut);

      const page = await open();
      await page.setViewportSize(viewport);
      let answer = () => {};
      const held = new Promise<void>((resolve) => (answer = resolve));
      await page.route("**/api/proposals/voting-power/**", async (route) => (await held, route.continue()));
      await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
      await page.goto("/governance");
      await page.getByText("Based on staked Spooks").waitFor();
      const loading = await tabsOffset(page);
      answer();
      await page.getByTestId("voting-power").waitFor();
      expect({ viewport, loading, loaded: await tabsOffset(page) }).toEqual({ viewport, loading: disconnected, loaded: disconnected });
    }
  });
});
