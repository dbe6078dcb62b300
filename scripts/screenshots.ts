/**
 * Before/after screenshots for a change's closing note: the staking page, the rewards page, a proposal page
 * and the points history, at 1280×800 and 390×844, signed in as the demo holder where the server runs in
 * demo mode (its built-in demo wallet, remembered under the page's `spooks.demoWallet` storage key, so no
 * wallet popup is needed). Relies only on URLs and on what every version of the pages has had, so the
 * same script shoots an old commit's demo server and a new one's.
 *
 *   node --import tsx scripts/screenshots.ts http://127.0.0.1:3000 ./shots [--prefix after-] [--journey]
 *
 * Files: `{prefix}{page}-{desktop|phone}.png` (full page) in the output folder. `--journey` (issue 33) adds the
 * verify page of the newest drawn giveaway, the stake dialog, the bell's panel, and last (it changes the demo) what a click on
 * a staked item's Unstake shows: `{prefix}stake-dialog-…`, `{prefix}bell-…`, `{prefix}unstake-…` (the viewport).
 * Not run by the tests.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_EXECUTABLE } from "../tests/e2e/support/browser.ts";

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const DEMO_WALLET_KEY = "spooks.demoWallet";

type DemoWallet = { label: string; address: string };

function usage(): never {
  console.error("usage: scripts/screenshots.ts BASE_URL OUTPUT_DIR [--prefix PREFIX]");
  process.exit(2);
}

async function getJson<T>(url: string): Promise<T | null> {
  try {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    return response.ok ? ((await response.json()) as T) : null;
  } catch {
    return null;
  }
}

/** The demo holder's address, or null when the server is not in demo mode (then the pages are shot signed out). */
async function demoHolder(base: string): Promise<string | null> {
  const answer = await getJson<{ wallets: DemoWallet[] }>(`${base}/api/demo/wallets`);
  const wallets = answer?.wallets ?? [];
  return (
    (wallets.find((wallet) => /holder/i.test(wallet.label)) ?? wallets.find((wallet) => !/admin/i.test(wallet.label)))?.address ?? null
  );
}

/** `/governance/{id}` when the server has proposal pages (a 200 that is not the not-found page), else `/governance`. */
async function proposalPath(base: string): Promise<string> {
  const proposals = await getJson<{ id: number }[] | { proposals: { id: number }[] }>(`${base}/api/proposals`);
  const list = Array.isArray(proposals) ? proposals : (proposals?.proposals ?? []);
  const first = list[0];
  if (!first) return "/governance";
  try {
    const response = await fetch(`${base}/governance/${first.id}`);
    const html = await response.text();
    if (response.ok && !html.includes("404 Page Not Found")) return `/governance/${first.id}`;
  } catch {
    // an old server: the list page it is
  }
  return "/governance";
}

/** The newest giveaway with winners (its verify page shows the draw and, to a winner, the claim), else the first. */
async function drawnGiveaway(base: string): Promise<number> {
  const list = (await getJson<{ id: number; winnerAddresses?: string[] }[]>(`${base}/api/giveaways`)) ?? [];
  const drawn = list.filter((giveaway) => (giveaway.winnerAddresses ?? []).length > 0).sort((a, b) => b.id - a.id)[0];
  return drawn?.id ?? 1;
}

/** Waits for the page to stop fetching (bounded: a page that polls never goes fully idle) and two frames. */
async function settle(page: Page) {
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => {});
  await page.waitForTimeout(500);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

async function main() {
  const args = process.argv.slice(2);
  const journeyAt = args.indexOf("--journey");
  const journey = journeyAt >= 0;
  if (journey) args.splice(journeyAt, 1);
  const prefixAt = args.indexOf("--prefix");
  const prefix = prefixAt >= 0 ? (args.splice(prefixAt, 2)[1] ?? usage()) : "";
  const [baseArg, outDir] = args;
  if (!baseArg || !outDir) usage();
  const base = baseArg.replace(/\/+$/, "");
  fs.mkdirSync(outDir, { recursive: true });

  const holder = await demoHolder(base);
  const pages = [
    { name: "staking", path: "/" },
    { name: "rewards", path: "/rewards" },
    { name: "proposal", path: await proposalPath(base) },
    { name: "points-history", path: "/rewards/history" },
    ...(journey ? [{ name: "verify", path: `/giveaways/${await drawnGiveaway(base)}/verify` }] : []),
  ];
  console.log(holder ? `signed in as the demo holder ${holder}` : "no demo wallets: shooting signed out");

  const browser = await chromium.launch({
    executablePath: CHROMIUM_EXECUTABLE,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      const context = await browser.newContext({ viewport, baseURL: base, deviceScaleFactor: 1 });
      if (holder) {
        await context.addInitScript(
          ({ key, address }) => {
            try {
              window.localStorage.setItem(key, address);
            } catch {
              // no storage: shot signed out
            }
          },
          { key: DEMO_WALLET_KEY, address: holder },
        );
      }
      const page = await context.newPage();
      for (const { name, path: target } of pages) {
        await page.goto(target, { waitUntil: "load" });
        await settle(page);
        const file = path.join(outDir, `${prefix}${name}-${size}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
        console.log(`${file}  ${target}`);
      }
      if (journey && holder) await journeyShots(page, outDir, prefix, size);
      await context.close();
    }
  } finally {
    await browser.close();
  }
}

/** What a click shows, as the viewport shows it: the stake dialog, the bell's panel, then a staked item's Unstake. */
async function journeyShots(page: Page, outDir: string, prefix: string, size: string) {
  const shot = async (name: string) => {
    await settle(page);
    const file = path.join(outDir, `${prefix}${name}-${size}.png`);
    await page.screenshot({ path: file, animations: "disabled" });
    console.log(file);
  };
  await page.goto("/", { waitUntil: "load" });
  await page
    .getByRole("button", { name: /^Stake .+#\d+$/ })
    .first()
    .click();
  await page.getByRole("dialog").waitFor();
  await shot("stake-dialog");
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: /^Notifications/ }).click();
  await page.getByRole("menu").waitFor();
  await shot("bell");
  await page.keyboard.press("Escape");
  // Last: on a demo without a confirmation this unstakes at once (the demo wallet signs without a popup).
  if (size === "phone") {
    // The demo's Legendary staked 34 days ago where there is one (its tenure is what a confirmation names).
    const veteran = page.getByRole("button", { name: "Unstake Spooks #4", exact: true });
    await ((await veteran.count()) ? veteran : page.getByRole("button", { name: /^Unstake .+#\d+$/ }).first()).click();
    await page.waitForTimeout(400);
    await shot("unstake");
  }
}

await main();
