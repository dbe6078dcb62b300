/**
 * The shell in a real browser: header, wallet button states, connect / disconnect with MyDoge, the
 * wallet panel and collection stats, the dropdown, demo mode's built-in wallet, and the 404 page.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { injectMyDoge, launchBrowser, screenshot, waitForToast } from "./support/browser.ts";
import { usePages } from "./support/pages.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
const pages = usePages();

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 5 }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function open(): Promise<Page> {
  const { page } = await pages.open(browser, world.url);
  return page;
}

describe("without a wallet", () => {
  test("asks for MyDoge: disabled 'Install MyDoge', 'MyDoge Wallet Required' with an install link", async () => {
    const page = await open();
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    await page.getByRole("heading", { name: "MyDoge Wallet Required" }).waitFor();
    const install = page.getByRole("banner").getByRole("button", { name: "Install MyDoge" });
    expect(await install.isDisabled()).toBe(true);
    expect(await page.getByRole("link", { name: "Install MyDoge" }).getAttribute("href")).toMatch(/^https:\/\/www\.mydoge\.com/);
    await page.getByRole("heading", { name: "How Staking Works" }).waitFor();
    await screenshot(page, "stake-no-wallet");
  });

  test("header: nav, tagline, three social links in a new tab, footer with the year", async () => {
    const page = await open();
    await page.goto("/");
    const header = page.getByRole("banner");
    for (const [name, href] of [
      ["Stake", "/"],
      ["Rewards", "/rewards"],
      ["Vote", "/governance"],
    ]) {
      expect(await header.getByRole("link", { name, exact: true }).getAttribute("href")).toBe(href);
    }
    await header.getByText("Stake Spooks, Earn Rewards").waitFor();
    const social = header.getByRole("list", { name: "Community links" }).getByRole("link");
    expect(await social.count()).toBe(3);
    for (const link of await social.all()) {
      expect(await link.getAttribute("target")).toBe("_blank");
      expect(await link.getAttribute("rel")).toContain("noopener");
    }
    const footer = page.getByRole("contentinfo");
    await footer.getByText("Stake Spooks, Earn Rewards").waitFor();
    await footer.getByText(String(new Date().getFullYear()), { exact: false }).waitFor();

    await header.getByRole("link", { name: "Rewards", exact: true }).click();
    await page.getByRole("heading", { name: "Spook Rewards" }).waitFor();
    await page.getByText("Connect Wallet", { exact: true }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe("/rewards");
  });

  test("an unknown path shows the 404 page inside the site's header and navigation", async () => {
    const page = await open();
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await page.getByRole("heading", { name: "404 Page Not Found" }).waitFor();
    await page.getByText("Did you forget to add the page to the router?").waitFor();
    const header = page.getByRole("banner");
    const navigation = header.getByRole("navigation", { name: "Main" });
    for (const [name, href] of [
      ["Stake", "/"],
      ["Rewards", "/rewards"],
      ["Vote", "/governance"],
    ]) {
      expect(await navigation.getByRole("link", { name, exact: true }).getAttribute("href")).toBe(href);
    }
    await page.getByRole("contentinfo").waitFor();
    await navigation.getByRole("link", { name: "Rewards", exact: true }).click();
    await page.getByRole("heading", { name: "Spook Rewards" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/rewards");
    await page.goto("/no/such/page");
    await screenshot(page, "not-found");
  });
});

describe("with MyDoge", () => {
  test("connect, wallet panel and stats, copy the address, disconnect", async () => {
    const page = await open();
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, balanceKoinu: 123_456_789_012 });
    await page.goto("/");
    await page.getByText("Connect your wallet to see Spooks").waitFor();
    await screenshot(page, "stake-disconnected");

    const header = page.getByRole("banner");
    await header.getByRole("button", { name: "Connect Wallet" }).click();
    const short = `${mydoge.address.slice(0, 4)}...${mydoge.address.slice(-4)}`;
    const walletButton = header.getByRole("button", { name: `${mydoge.address.slice(0, 4)}...${mydoge.address.slice(-4)}` });
    await walletButton.getByText(short).waitFor();

    // Wallet panel: DOGE to 2 decimals and Spook Points.
    await page.getByTestId("doge-balance").first().getByText("1,234.57").waitFor();
    await page.getByText("Spook Points").first().waitFor();
    await page.getByRole("group", { name: "Wallet balances" }).getByTestId("points-balance").waitFor();

    // Collection stats: four cards from the server.
    const stats = page.getByRole("region", { name: "Collection statistics" });
    await stats.getByTestId("stat-Total Spooks").getByText("10").waitFor();
    await stats.getByTestId("stat-OG Spooks").getByText("5").waitFor();
    await stats.getByTestId("stat-Spook Society").getByText("5").waitFor();
    await stats.getByTestId("stat-Currently Staked").getByText("0").waitFor();
    for (const label of ["Total Spooks Owned", "Original Collection", "Society Collection", "Earning Rewards"]) {
      await stats.getByText(label).waitFor();
    }

    // Dropdown: copy shows a check for 2 s; an outside click closes it.
    await walletButton.click();
    await page.getByRole("menuitem", { name: "Copy Address" }).click();
    await page.getByRole("menuitem", { name: "Copied!" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mydoge.address);
    await page.getByRole("menuitem", { name: "Copy Address" }).waitFor({ timeout: 4000 });
    await page.mouse.click(5, 400);
    await page.getByRole("menu").waitFor({ state: "detached" });

    // Reloading keeps the connection (MyDoge remembers the site).
    await page.reload();
    await walletButton.waitFor();

    await walletButton.click();
    await page.getByRole("menuitem", { name: "Disconnect" }).click();
    await header.getByRole("button", { name: "Connect Wallet" }).waitFor();
    await page.getByText("Connect your wallet to see Spooks").waitFor();
    expect(await stats.count()).toBe(0);
  });

  test("a declined connection shows 'Connection Failed'", async () => {
    const page = await open();
    const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex });
    await page.goto("/");
    await page.getByText("Connect your wallet to see Spooks").waitFor();
    await mydoge.setBehaviour(page, { rejectConnect: true });
    await page.getByRole("banner").getByRole("button", { name: "Connect Wallet" }).click();
    await waitForToast(page, "Connection Failed", "Failed to connect to MyDoge wallet.");
  });
});

describe("demo mode", () => {
  let demo: E2eWorld;
  beforeAll(async () => {
    demo = await startE2eWorld({ holderOwns: 3, perCollection: 6, demo: true });
  });
  afterAll(async () => {
    await demo?.close();
  });

  test("with no extension the built-in demo wallet connects and signs", async () => {
    const { page } = await pages.open(browser, demo.url);
    await page.goto("/");
    await page.getByText("Connect your wallet to see Spooks").waitFor();
    await page.getByText("Demo mode: a built-in demo wallet stands in for MyDoge.").waitFor();
    await page.getByRole("banner").getByRole("button", { name: "Connect Wallet" }).click();
    await page.getByRole("dialog", { name: /Demo wallet/ }).waitFor();
    await page.getByRole("button", { name: /Demo holder/ }).click();
    await page.getByRole("heading", { name: "Your Spooks" }).waitFor();
    await page.getByTestId("item-card").first().waitFor();
    expect(await page.getByTestId("item-card").count()).toBe(6);

    // Sign a real stake with the demo key.
    await page.getByRole("button", { name: "Stake Spooks #1", exact: true }).click();
    await page.getByRole("button", { name: "Sign & Stake" }).click();
    await page.locator('[data-testid="item-card"][data-staked="true"]').first().waitFor();
    await waitForToast(page, "Spook Staked!");
    const [row] = await demo.db.sql<
      { count: number }[]
    >`select count(*)::int as count from stakes where address = ${demo.holder.address} and ended_at is null`;
    expect(row.count).toBe(1);
  });

  test("outside demo mode the server has no demo wallets", async () => {
    const response = await fetch(`${world.url}/api/demo/wallets`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "Not found" });
    const demoResponse = await fetch(`${demo.url}/api/demo/wallets`);
    expect(demoResponse.status).toBe(200);
    const body = (await demoResponse.json()) as { wallets: { address: string }[] };
    expect(body.wallets.map((wallet) => wallet.address)).toEqual([demo.holder.address, demo.admin.address]);
  });
});
