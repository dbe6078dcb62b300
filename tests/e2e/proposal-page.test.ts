/**
 * Issue 27, items 10 and 15 in a real browser: a proposal's own address (/governance/{id}, direct load,
 * reload, a 404 for an unknown id, the list links to it), its start and end times, the voting power that
 * proposal counts (its snapshot, not today's stake), its votes as a table with the browser's ✓, "You voted
 * {option}" on its card, a signed vote that cannot be lost silently (leaving before "Submit Vote" asks
 * first), and the message to sign shown with what it means ("Option: …", "Item: Spook Society #N").
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { voteMessage } from "../../app/domain/messages.ts";
import { signMessage } from "../../app/domain/signature.ts";
import { castVote, createProposal, type Proposal } from "../../db/queries/proposals.server.ts";
import { findItems, stakeItems } from "../../db/queries/stakes.server.ts";
import { closeDialogWithEscape, injectMyDoge, launchBrowser, waitForToast } from "./support/browser.ts";
import { atTime } from "./support/clock.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";
import { usePages } from "./support/pages.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let world: E2eWorld;
let browser: Browser;
let proposal: Proposal;
const pages = usePages();

async function open(): Promise<Page> {
  const { page } = await pages.open(browser, world.url);
  page.setDefaultTimeout(15_000);
  return page;
}

const short = (address: string) => `${address.slice(0, 6)}...${address.slice(-4)}`;

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 3, perCollection: 6 }), launchBrowser()]);
  const now = Date.now();
  const sql = world.db.sql;
  const holderIds = world.holderItems.map((item) => item.inscriptionId);
  const otherIds = world.items
    .filter((item) => !world.holderItems.includes(item))
    .slice(0, 2)
    .map((item) => item.inscriptionId);
  // The holder had 4 items staked when voting opened and stakes 1 more after: the proposal counts 4, today's stake is 5.
  await atTime(now - 5 * DAY, async () => {
    await stakeItems(sql, world.holder.address, await findItems(sql, holderIds.slice(0, 4)));
    await stakeItems(sql, world.other.address, await findItems(sql, otherIds));
  });
  proposal = await atTime(now - 2 * HOUR, () =>
    createProposal(
      sql,
      {
        title: "Pick the next Spooky event",
        description: "Choose the season's event.",
        startDate: new Date(now - HOUR),
        endDate: new Date(now + 3 * DAY),
        voteType: "multiple_choice",
        options: ["Costume contest", "Scavenger hunt", "Pixel-art jam"],
        createdBy: world.admin.address,
      },
      { kind: "web", address: world.admin.address },
    ),
  );
  await stakeItems(sql, world.holder.address, await findItems(sql, holderIds.slice(4, 5)));
  // 'other' voted with a real signature: its row in the votes table is verified (✓).
  const message = voteMessage(proposal.id, proposal.title, proposal.options[1].id, new Date());
  const signature = signMessage(hexToBytes(world.other.privateKeyHex), message);
  await castVote(sql, { proposalId: proposal.id, optionId: proposal.options[1].id, address: world.other.address, message, signature });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

describe("a proposal's own page", () => {
  test("/governance/{id} opens its dialog on direct load and reload, shows its window and its votes table; unknown ids are 404", async () => {
    const page = await open();
    const response = await page.goto(`/governance/${proposal.id}`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toContain(proposal.title);
    let dialog = page.getByRole("dialog", { name: proposal.title });
    await dialog.waitFor();
    // Start and end times, not only days.
    const window = dialog.getByTestId("proposal-window");
    expect(await window.textContent()).toMatch(
      // Issue 33, item 5: the one clock, 24-hour with the reader's zone.
      /^Starts[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [A-Z][A-Za-z0-9+:-]*Ends[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [A-Z][A-Za-z0-9+:-]*$/,
    );
    const startShown = await window.locator("time").first().getAttribute("datetime");
    expect(startShown).toBe(proposal.startDate.toISOString());

    // The votes as a readable table (not raw JSON), with the browser's own check of each vote.
    const table = dialog.getByTestId("votes-table");
    await table.waitFor();
    const row = table.getByRole("row").filter({ hasText: short(world.other.address) });
    await row.getByRole("cell", { name: "Scavenger hunt" }).waitFor();
    await row.getByRole("cell", { name: "2", exact: true }).waitFor();
    await row.getByText("Verified").waitFor();
    expect(await row.getByText("✓").count()).toBe(1);
    expect(await dialog.getByText('"votes"').count()).toBe(0);

    await page.reload();
    dialog = page.getByRole("dialog", { name: proposal.title });
    await dialog.waitFor();

    // Closing goes back to the list; the list's View Details is a link to the proposal's address.
    await page.keyboard.press("Escape");
    await page.waitForURL((url) => url.pathname === "/governance");
    await dialog.waitFor({ state: "detached" });
    const link = page.getByTestId("proposal-card").filter({ hasText: proposal.title }).getByRole("link", { name: "View Details" });
    expect(await link.getAttribute("href")).toBe(`/governance/${proposal.id}`);
    await link.click();
    await page.waitForURL((url) => url.pathname === `/governance/${proposal.id}`);
    await page.getByRole("dialog", { name: proposal.title }).waitFor();

    const missing = await page.goto("/governance/999999");
    expect(missing?.status()).toBe(404);
    await page.getByRole("dialog", { name: "Proposal not found" }).waitFor();
  }, 120_000);

  test("snapshot power, the message with its meaning, leaving a signed vote asks first, then 'You voted {option}' on the card", async () => {
    const page = await open();
    const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto(`/governance/${proposal.id}`);
    // Today's stake in the box; the proposal's own snapshot in its dialog.
    await page.getByTestId("voting-power").getByText("5").waitFor();
    const dialog = page.getByRole("dialog", { name: proposal.title });
    await dialog.getByText("Your voting power: 4").waitFor();

    // The message to sign, and what it means.
    await dialog.getByText("Costume contest").click();
    const message = dialog.getByTestId("vote-message");
    expect(await message.textContent()).toMatch(
      new RegExp(`^Voting on proposal #${proposal.id}: .+\\. Option: ${proposal.options[0].id}\\. Timestamp: `),
    );
    const meaning = dialog.getByTestId("vote-message-meaning");
    expect(await meaning.getByRole("listitem").allTextContents()).toEqual([
      `Proposal #${proposal.id}: ${proposal.title}`,
      "Option: Costume contest",
    ]);
    const shown = await message.textContent();

    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await dialog.getByRole("button", { name: "Submit Vote" }).waitFor();
    expect(mydoge.signed.at(-1)).toBe(shown);

    // Closing before Submit Vote asks first; "Keep voting" keeps the signed vote.
    await page.keyboard.press("Escape");
    const confirm = page.getByRole("alertdialog", { name: "Leave without submitting your vote?" });
    await confirm.waitFor();
    await confirm.getByRole("button", { name: "Keep voting" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(new URL(page.url()).pathname).toBe(`/governance/${proposal.id}`);
    await dialog.getByRole("button", { name: "Submit Vote" }).waitFor();

    // Leaving by the header's navigation asks too; leaving records nothing.
    await dialog.getByRole("button", { name: "Close" }).click();
    await confirm.getByRole("button", { name: "Leave without voting" }).click();
    await page.waitForURL((url) => url.pathname === "/governance");
    const [{ count }] = await world.db.sql<{ count: number }[]>`
      select count(*)::int from votes where proposal_id = ${proposal.id} and address = ${world.holder.address}`;
    expect(count).toBe(0);

    // Vote for real, then the card says so.
    const card = page.getByTestId("proposal-card").filter({ hasText: proposal.title });
    expect(await card.getByTestId("proposal-voted").count()).toBe(0);
    await card.getByRole("link", { name: "View Details" }).click();
    await dialog.getByText("Costume contest").click();
    await dialog.getByRole("button", { name: "Sign and Vote" }).click();
    await dialog.getByRole("button", { name: "Submit Vote" }).click();
    await waitForToast(page, "Vote submitted successfully", "Your vote has been recorded.");
    await dialog.getByText("You voted for option: Costume contest").waitFor();
    const power = dialog.getByTestId("proposal-power");
    await power.getByText("Your voting power on this proposal: 4").waitFor();
    // The holder's own row: power 4 (its snapshot), verified.
    const own = dialog
      .getByTestId("votes-table")
      .getByRole("row")
      .filter({ hasText: short(world.holder.address) });
    await own.getByRole("cell", { name: "4", exact: true }).waitFor();
    await own.getByText("Verified").waitFor();
    // Submitted: closing asks nothing.
    await closeDialogWithEscape(page);
    await page.waitForURL((url) => url.pathname === "/governance");
    expect(await page.getByRole("alertdialog").count()).toBe(0);
    await card.getByTestId("proposal-voted").getByText("You voted Costume contest").waitFor();
  }, 120_000);

  test("the stake dialog shows what its message means: the item by its collection's name", async () => {
    const page = await open();
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto("/");
    const society = world.holderItems.find((item) => item.collection === "spook-society" && item.number === 3)!;
    const name = `Spook Society #${society.number}`;
    await page.getByRole("button", { name: `Stake ${name}`, exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
    expect(await dialog.getByTestId("stake-message").textContent()).toMatch(/^Staking Spook #3 for Spook Points\. Timestamp: /);
    expect(await dialog.getByTestId("stake-message-meaning").getByRole("listitem").allTextContents()).toEqual([
      `Item: ${name}`,
      `Inscription: ${society.inscriptionId}`,
    ]);
  }, 60_000);
});
