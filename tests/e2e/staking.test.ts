/**
 * The staking page in a real browser against the real app and database: dashboard, one stake through the
 * dialog (the exact message signed), Stake All and Unstake All with one signature, unstake, a cancelled
 * signature rolled back, 'Already Processing', and a transfer on the simulated chain ending a stake.
 * One browser and one page for the whole file; the tests run in order and build on each other.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { injectMyDoge, launchBrowser, newPage, screenshot, waitForToast, type MyDogeHandle, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const STAKE_MESSAGE = /^Staking Spook #1 for Spook Points\. Timestamp: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let world: E2eWorld;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: PageProblems;
let mydoge: MyDogeHandle;

const card = (name: string) => page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });
/** A single unstake's confirmation (issue 33, item 1): what it costs, then the wallet. */
async function confirmUnstake(name: string) {
  const dialog = page.getByRole("alertdialog", { name: `Unstake ${name}?` });
  await dialog.getByRole("button", { name: "Unstake", exact: true }).click();
  await dialog.waitFor({ state: "detached" });
}
const stakedCards = () => page.locator('[data-testid="item-card"][data-staked="true"]');

async function openStakes(): Promise<{ inscriptionId: string; address: string; endReason: string | null }[]> {
  return world.db.sql`
    select i.inscription_id, s.address, s.end_reason from stakes s join items i on i.id = s.item_id
    where s.ended_at is null order by i.id`;
}

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 6 }), launchBrowser()]);
  await world.addPoints(world.holder.address, 1234);
  ({ context, page, problems } = await newPage(browser, world.url));
  mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await world?.close();
  expect(problems?.errors ?? []).toEqual([]);
});

describe("staking page", () => {
  test("connected dashboard: 8 skeletons while loading, then the wallet's Spooks, tabs and the rewards panel", async () => {
    // Hold the list back a moment to see the loading state.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/wallet-doginals/**", async (route) => {
      await held;
      await route.continue().catch(() => {});
    });
    await page.goto("/");
    await page.getByRole("heading", { name: "Your Spooks" }).waitFor();
    await page.getByTestId("item-skeleton").nth(7).waitFor();
    expect(await page.getByTestId("item-skeleton").count()).toBe(8);
    release();
    await card("Spooks #1").waitFor();
    await page.unroute("**/api/wallet-doginals/**");
    expect(await page.getByTestId("item-card").count()).toBe(12);
    expect(await page.getByTestId("item-skeleton").count()).toBe(0);

    // Rarity label with rank, coloured by rarity.
    const rarity = card("Spooks #1").getByTestId("rarity");
    const label = await rarity.textContent();
    const colour = { Legendary: "yellow", Epic: "purple", Rare: "blue", Common: "zinc" }[label as "Legendary"];
    expect(await rarity.getAttribute("class")).toContain(`text-${colour}-`);
    await card("Spooks #1")
      .getByText(/^Rank #\d+$/)
      .waitFor();

    // Tabs.
    const tabs = page.getByRole("tablist", { name: "Filter Spooks" });
    await tabs.getByRole("tab", { name: /^Spooks/ }).click();
    expect(await page.getByTestId("item-card").count()).toBe(6);
    await tabs.getByRole("tab", { name: /^Society/ }).click();
    expect(await page.getByTestId("item-card").count()).toBe(6);
    // The grid is the active tab's panel (the tab's aria-controls points at it).
    expect(
      await page
        .getByRole("tabpanel", { name: /^Society/ })
        .getByTestId("item-card")
        .count(),
    ).toBe(6);
    await card("Spook Society #3").waitFor();
    await tabs.getByRole("tab", { name: /^Staked/ }).click();
    await page.getByText("No Spooks found in this category").waitFor();
    expect(await page.getByRole("button", { name: "Unstake All", exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Stake All", exact: true }).count()).toBe(0);
    await tabs.getByRole("tab", { name: /^All/ }).click();

    // Rewards side panel.
    const panel = page.getByRole("complementary", { name: "Rewards" });
    await panel.getByText("Daily Earning Rate").waitFor();
    await panel.getByText("+0 SPOOK").waitFor();
    await panel.getByText("0 out of 12 Spooks Staked").waitFor();
    await panel.getByText("Tier 1 Rewards").waitFor();
    await panel.getByTestId("panel-points").getByText("1,234").waitFor();
    await panel.getByText("Points are automatically added hourly").waitFor();
    await panel.getByTestId("rank").getByText("#1").waitFor();
    for (const row of ["1-4 Spooks", "5-9 Spooks", "10+ Spooks"]) await panel.getByRole("cell", { name: row }).waitFor();
    for (const rate of ["100 SPOOK", "120 SPOOK", "150 SPOOK"]) await panel.getByRole("cell", { name: rate, exact: true }).waitFor();
    await panel
      .getByTestId("top-stakers")
      .getByText(`${world.holder.address.slice(0, 4)}...${world.holder.address.slice(-4)}`)
      .waitFor();
  });

  test("stake one: the dialog shows the exact message, the wallet signs it, the card shows STAKED", async () => {
    await card("Spooks #1").getByRole("button", { name: "Stake Spooks #1", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
    await dialog.getByText("Sign with MyDoge wallet to earn SPOOK Points").waitFor();
    await dialog.getByTestId("stake-dialog-item").getByText("Spooks #1").waitFor();
    await dialog.getByText("+100 SPOOK per day").waitFor();
    const shown = (await dialog.getByTestId("stake-message").textContent()) ?? "";
    expect(shown).toMatch(STAKE_MESSAGE);
    await dialog.getByRole("button", { name: "Cancel" }).waitFor();
    await screenshot(page, "stake-dialog");

    const signedBefore = mydoge.signed.length;
    await dialog.getByRole("button", { name: "Sign & Stake" }).click();
    await dialog.waitFor({ state: "detached" });
    await waitForToast(page, "Spook Staked!");
    expect(mydoge.signed.slice(signedBefore)).toEqual([shown]);

    await card("Spooks #1").getByText("STAKED").waitFor();
    await card("Spooks #1").getByText("+100 SPOOK/day").waitFor();
    await card("Spooks #1").getByRole("button", { name: "Unstake Spooks #1", exact: true }).waitFor();
    expect((await openStakes()).map((stake) => stake.inscriptionId)).toEqual([world.holderItems[0].inscriptionId]);
    const panel = page.getByRole("complementary", { name: "Rewards" });
    await panel.getByText("1 out of 12 Spooks Staked").waitFor();
    await panel.getByText("+100 SPOOK").waitFor();
    await page.getByTestId("stat-Currently Staked").getByText("1").waitFor();
  });

  test("Stake All on the Spooks tab: confirm 'Stake all 5 Spooks?', one signature, the bulk endpoint", async () => {
    await page.getByRole("tab", { name: /^Spooks/ }).click();
    const signedBefore = mydoge.signed.length;
    let bulkCalls = 0;
    let singleCalls = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/stake/bulk")) bulkCalls++;
      if (request.url().endsWith("/api/stake")) singleCalls++;
    });
    await page.getByRole("button", { name: "Stake All", exact: true }).click();
    const confirm = page.getByRole("alertdialog", { name: "Stake all 5 Spooks?" });
    await confirm.waitFor();
    await confirm.getByRole("button", { name: "Stake All", exact: true }).click();
    await waitForToast(page, "Success!", "5 Spooks staked.");
    expect(mydoge.signed.length - signedBefore).toBe(1);
    expect(mydoge.signed.at(-1)).toMatch(
      /^Staking 5 Spooks for Spook Points: Spooks #2, Spooks #3, Spooks #4, Spooks #5, Spooks #6\. Timestamp: /,
    );
    expect([bulkCalls, singleCalls]).toEqual([1, 0]);

    expect(await stakedCards().count()).toBe(6);
    // Spec section 2: disabled only when nothing at all is unstaked (the Society Spooks are), so on this tab,
    // with nothing of its own left, it answers the 'No Unstaked Spooks' toast and asks for no signature.
    const stakeAll = page.getByRole("button", { name: "Stake All", exact: true });
    await stakeAll.and(page.locator(":enabled")).waitFor();
    const signedAfterBulk = mydoge.signed.length;
    await stakeAll.click();
    await waitForToast(page, "No Unstaked Spooks");
    expect(mydoge.signed.length).toBe(signedAfterBulk);
    expect(await page.getByRole("alertdialog").count()).toBe(0);
    expect((await openStakes()).length).toBe(6);
    const panel = page.getByRole("complementary", { name: "Rewards" });
    await panel.getByText("6 out of 12 Spooks Staked").waitFor();
    await panel.getByText("Tier 2 Rewards").waitFor();
    await panel.getByText("+720 SPOOK").waitFor();
    await page.getByTestId("stat-Currently Staked").getByText("6").waitFor();
    await page.getByRole("tab", { name: /^All/ }).click();
    await page.getByRole("button", { name: "Stake All", exact: true }).and(page.locator(":enabled")).waitFor();
    await screenshot(page, "stake-dashboard");
    await screenshot(page, "stake-dashboard-full", { fullPage: true });
  });

  test("unstake one: 'Success!' and the stake ends on the server", async () => {
    await page.getByRole("tab", { name: /^Staked/ }).click();
    expect(await page.getByTestId("item-card").count()).toBe(6);
    const signed = mydoge.signed.length;
    await card("Spooks #1").getByRole("button", { name: "Unstake Spooks #1", exact: true }).click();
    // Issue 33, item 1: it asks first, before the wallet opens.
    await page.getByRole("alertdialog", { name: "Unstake Spooks #1?" }).waitFor();
    expect(mydoge.signed.length).toBe(signed);
    await confirmUnstake("Spooks #1");
    await waitForToast(page, "Success!", "Unstaking request completed successfully");
    expect(mydoge.signed.at(-1)).toMatch(/^Unstaking Spook #1 from SPOOK Points\. Timestamp: /);
    expect(await page.getByTestId("item-card").count()).toBe(5);
    expect((await openStakes()).some((stake) => stake.inscriptionId === world.holderItems[0].inscriptionId)).toBe(false);
  });

  test("a declined signature is rolled back with 'Signature Cancelled'", async () => {
    await page.getByRole("tab", { name: /^Society/ }).click();
    await mydoge.setBehaviour(page, { rejectSign: true });
    await card("Spook Society #1").getByRole("button", { name: "Stake Spook Society #1", exact: true }).click();
    await page.getByRole("dialog", { name: "Stake Your Spook" }).getByRole("button", { name: "Sign & Stake" }).click();
    await waitForToast(page, "Signature Cancelled", "Staking operation was cancelled.");
    expect(await card("Spook Society #1").getAttribute("data-staked")).toBe("false");
    await mydoge.setBehaviour(page, { rejectSign: false });
    expect((await openStakes()).length).toBe(5);
  });

  test("'Already Processing' while an unstake of the same Spook waits for its signature", async () => {
    await page.getByRole("tab", { name: /^Spooks/ }).click();
    await mydoge.setBehaviour(page, { holdSigning: true });
    await card("Spooks #2").getByRole("button", { name: "Unstake Spooks #2", exact: true }).click();
    await confirmUnstake("Spooks #2");
    // Optimistically unstaked at once: the card offers Stake, which is refused while the unstake runs.
    await card("Spooks #2").getByRole("button", { name: "Stake Spooks #2", exact: true }).click();
    await waitForToast(page, "Already Processing");
    await mydoge.setBehaviour(page, { holdSigning: false });
    await waitForToast(page, "Success!", "Unstaking request completed successfully");
    expect(await card("Spooks #2").getAttribute("data-staked")).toBe("false");
  });

  test("Unstake All on the Staked tab", async () => {
    await page.getByRole("tab", { name: /^Staked/ }).click();
    const staked = await page.getByTestId("item-card").count();
    expect(staked).toBe(4);
    await page.getByRole("button", { name: "Unstake All", exact: true }).click();
    const confirm = page.getByRole("alertdialog", { name: `Unstake all ${staked} Spooks?` });
    await confirm.getByRole("button", { name: "Unstake All", exact: true }).click();
    await waitForToast(page, "Success!", `${staked} Spooks unstaked.`);
    await page.getByText("No Spooks found in this category").waitFor();
    expect(mydoge.signed.at(-1)).toMatch(/^Unstaking 4 Spooks from SPOOK Points: /);
    expect((await openStakes()).length).toBe(0);
  });

  test("'Already Staked' when the server already has the stake (another tab staked it)", async () => {
    // A fresh page, so no refresh of the previous test can pick up the stake made below.
    await page.reload();
    await page.getByRole("tab", { name: /^Society/ }).click();
    await card("Spook Society #3").getByRole("button", { name: "Stake Spook Society #3", exact: true }).waitFor();
    await world.db.sql`
      insert into stakes (item_id, address, started_at)
      select id, ${world.holder.address}, ${new Date()} from items where name = 'Spook Society #3'`;
    await card("Spook Society #3").getByRole("button", { name: "Stake Spook Society #3", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
    await dialog.getByRole("button", { name: "Sign & Stake" }).click();
    await waitForToast(page, "Already Staked");
    await dialog.waitFor({ state: "detached" });
    expect(await card("Spook Society #3").getAttribute("data-staked")).toBe("true");
    await card("Spook Society #3").getByRole("button", { name: "Unstake Spook Society #3", exact: true }).click();
    await confirmUnstake("Spook Society #3");
    await waitForToast(page, "Success!", "Unstaking request completed successfully");
    expect((await openStakes()).length).toBe(0);
  });

  test("a staked Spook transferred on the chain is unstaked after the indexer's sync", async () => {
    await page.getByRole("tab", { name: /^Society/ }).click();
    await card("Spook Society #2").getByRole("button", { name: "Stake Spook Society #2", exact: true }).click();
    await page.getByRole("dialog", { name: "Stake Your Spook" }).getByRole("button", { name: "Sign & Stake" }).click();
    await waitForToast(page, "Spook Staked!");
    await card("Spook Society #2").getByText("STAKED").waitFor();
    const item = world.holderItems.find((entry) => entry.name === "Spook Society #2")!;
    expect((await openStakes()).map((stake) => stake.inscriptionId)).toEqual([item.inscriptionId]);

    world.chain.transfer(item.inscriptionId, world.other.address);
    await world.sync();
    const [ended] = await world.db.sql<{ endReason: string }[]>`
      select s.end_reason from stakes s join items i on i.id = s.item_id where i.inscription_id = ${item.inscriptionId}`;
    expect(ended.endReason).toBe("transferred");

    await page.reload();
    await card("Spook Society #1").waitFor();
    expect(await card("Spook Society #2").count()).toBe(0);
    expect(await page.getByTestId("item-card").count()).toBe(11);
    await page.getByTestId("stat-Total Spooks").getByText("11").waitFor();
    await page.getByTestId("stat-Currently Staked").getByText("0").waitFor();
  });
});
