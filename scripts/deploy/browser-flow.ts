/**
 * What `npm run test:deploy` does in Chromium through the stack's https:// address, with the e2e tests' MyDoge
 * stand-in (tests/e2e/support/browser.ts): the admin signs in and creates a giveaway with an uploaded picture;
 * the holder stakes one Spook and enters that giveaway.
 */
import type { Browser, Page } from "playwright-core";
import { injectMyDoge, newPage, waitForToast } from "../../tests/e2e/support/browser.ts";

export type Wallet = { privateKeyHex: string; address: string };

async function open(browser: Browser, url: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const { context, page, problems } = await newPage(browser, url, { ignoreHTTPSErrors: true });
  // tsx compiles this script keeping function names: the functions sent to the page call its `__name` helper.
  await context.addInitScript({ content: "globalThis.__name = (target) => target;" });
  page.setDefaultTimeout(30_000);
  return { page, errors: problems.errors, close: () => context.close() };
}

/** A PNG of a few hundred bytes, drawn by the browser itself. */
async function prizePicture(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: 200, height: 120 } });
  await page.setContent('<body style="margin:0;background:#1a1025;color:#f97316;font:32px sans-serif">Prize</body>');
  const png = await page.screenshot({ type: "png" });
  await page.close();
  return png;
}

/** The admin signs the challenge and creates `title` (50 points a ticket) with an uploaded picture; its image URL. */
export async function adminCreatesGiveaway(browser: Browser, url: string, admin: Wallet, title: string): Promise<string> {
  const { page, errors, close } = await open(browser, url);
  const mydoge = await injectMyDoge(page, { privateKeyHex: admin.privateKeyHex });
  await page.goto("/admin");
  await page.getByRole("main").getByRole("button", { name: "Connect Wallet" }).click();
  await page.getByRole("tab", { name: "User Points" }).waitFor();
  if (mydoge.signed.length !== 1 || !mydoge.signed[0].startsWith(`${new URL(url).host} wants you to sign in`)) {
    throw new Error(`the admin signed ${JSON.stringify(mydoge.signed)}`);
  }
  await page.getByRole("tab", { name: "Giveaways" }).click();
  await page.getByLabel("Title").fill(title);
  await page.getByLabel("Description").fill("Created by npm run test:deploy through the proxy.");
  await page
    .getByLabel("Image", { exact: true })
    .setInputFiles({ name: "prize.png", mimeType: "image/png", buffer: await prizePicture(browser) });
  const preview = page.getByTestId("image-preview");
  await preview.and(page.locator('[src^="/uploads/"]')).waitFor();
  const imageUrl = (await preview.getAttribute("src")) ?? "";
  await page.getByLabel("Points Cost").fill("50");
  const end = await page.evaluate(() => {
    const date = new Date(Date.now() + 3 * 24 * 3_600_000);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  });
  await page.getByLabel("End Date").fill(end);
  await page.getByRole("button", { name: "Create Giveaway" }).click();
  await waitForToast(page, "Giveaway Created");
  await close();
  if (errors.length) throw new Error(`the admin's page reported: ${errors.join("; ")}`);
  return imageUrl;
}

/** The holder stakes `item` (e.g. "Spooks #1") and enters the giveaway `title` with one ticket. */
export async function holderStakesAndEnters(browser: Browser, url: string, holder: Wallet, item: string, title: string): Promise<void> {
  const { page, errors, close } = await open(browser, url);
  await injectMyDoge(page, { privateKeyHex: holder.privateKeyHex, connected: true });
  await page.goto("/");
  const card = page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name: item, exact: true }) });
  await card.getByRole("button", { name: `Stake ${item}`, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Stake Your Spook" });
  await dialog.getByRole("button", { name: "Sign & Stake" }).click();
  await waitForToast(page, "Spook Staked!");
  await card.getByText("STAKED").waitFor();

  await page.goto("/rewards");
  await page.getByRole("tab", { name: "Active Giveaways" }).click();
  const giveaway = page.locator('[data-testid="giveaway-card"]').filter({ has: page.getByRole("heading", { name: title }) });
  await giveaway.getByRole("button", { name: "Enter Giveaway" }).click();
  const enter = page.getByRole("dialog", { name: "Enter Giveaway" });
  await enter.getByRole("button", { name: "Enter Giveaway" }).click();
  await waitForToast(page, "Entry Successful!");
  await giveaway.getByTestId("your-tickets").getByText("1").waitFor();
  await close();
  if (errors.length) throw new Error(`the holder's page reported: ${errors.join("; ")}`);
}
