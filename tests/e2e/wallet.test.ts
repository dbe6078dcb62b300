/**
 * The wallet against the realistic MyDoge double (tests/e2e/support/browser.ts, REAL-WORLD.md "MyDoge"):
 * the provider appears only at the window's `load` (a page whose load takes over 5 s still finds it), a
 * declined connect and a closed connect popup, the 'Wallet Connected' / 'Wallet Disconnected' success
 * toasts of 5 s, a declined and a closed signing popup, a wallet locked while signing (shown as
 * disconnected, not 'Signature Cancelled'), an old build's hex signature accepted end to end, and an old
 * build without signing (the 'Update MyDoge' message). Each test opens its own page.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CONNECTION_LOST_TOAST, MYDOGE_CALL_TIMEOUT_MS, MYDOGE_TIMEOUT_TOAST, UPDATE_MYDOGE_TOAST } from "../../app/wallet/mydoge.ts";
import { injectMyDoge, launchBrowser, waitForToast, type MyDogeOptions } from "./support/browser.ts";
import { usePages } from "./support/pages.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

let world: E2eWorld;
let browser: Browser;
const pages = usePages();

beforeAll(async () => {
  [world, browser] = await Promise.all([startE2eWorld({ holderOwns: 4, perCollection: 6 }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function open(options: Omit<MyDogeOptions, "privateKeyHex"> = {}) {
  const { page } = await pages.open(browser, world.url);
  const mydoge = await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, ...options });
  return { page, mydoge };
}

const header = (page: Page) => page.getByRole("banner");
const connectButton = (page: Page) => header(page).getByRole("button", { name: "Connect Wallet", exact: true });
const walletButton = (page: Page, address: string) =>
  header(page).getByRole("button", { name: `${address.slice(0, 4)}...${address.slice(-4)}` });
const card = (page: Page, name: string) =>
  page.locator('[data-testid="item-card"]').filter({ has: page.getByRole("heading", { name, exact: true }) });
const toastItem = (page: Page, title: string) => page.locator("li[data-variant]").filter({ hasText: title });

async function openStakes(): Promise<string[]> {
  const rows = await world.db.sql<{ inscriptionId: string }[]>`
    select i.inscription_id from stakes s join items i on i.id = s.item_id where s.ended_at is null order by i.id`;
  return rows.map((row) => row.inscriptionId);
}

/** Opens the stake dialog of `name` and signs. */
async function signAndStake(page: Page, name: string) {
  await card(page, name)
    .getByRole("button", { name: `Stake ${name}`, exact: true })
    .click();
  await page.getByRole("dialog", { name: "Stake Your Spook" }).getByRole("button", { name: "Sign & Stake" }).click();
}

/** Records, in the page's own clock, when each toast (by title) opens and closes. */
async function watchToasts(page: Page) {
  await page.evaluate(() => {
    const times: Record<string, { opened: number; closed?: number }> = {};
    (window as unknown as { __toastTimes: typeof times }).__toastTimes = times;
    const scan = () => {
      for (const item of document.querySelectorAll("li[data-variant]")) {
        const title = item.firstElementChild?.textContent ?? item.textContent ?? "";
        for (const key of ["Wallet Connected", "Wallet Disconnected"]) {
          if (!title.includes(key)) continue;
          times[key] ??= { opened: performance.now() };
          if (item.getAttribute("data-state") === "closed") times[key].closed ??= performance.now();
        }
      }
    };
    new MutationObserver(scan).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-state"],
    });
  });
}

type ToastTimes = { __toastTimes: Record<string, { opened: number; closed?: number }> };
const toastTimes = (page: Page, title: string) =>
  page.evaluate((key) => (window as unknown as ToastTimes).__toastTimes[key] ?? null, title);

/**
 * Holds the page's clock still (a loaded machine may run the page's timers late, so a toast's 5 s are measured on a
 * clock only the test moves). The page's clock runs on while the call travels and pausing in its past is refused:
 * the pause lands a moment ahead, further if needed; the test holds it before the action that opens a toast.
 */
async function holdClock(page: Page) {
  for (const ahead of [250, 1000, 4000]) {
    try {
      return await page.clock.pauseAt((await page.evaluate(() => Date.now())) + ahead);
    } catch (error) {
      if (!String(error).includes("to the past")) throw error;
    }
  }
  throw new Error("could not hold the page's clock");
}

/** Runs the held clock 50 ms at a time until the toast titled `title` has opened. */
async function runUntilToast(page: Page, title: string) {
  const deadline = Date.now() + 20_000;
  while (!(await toastTimes(page, title))) {
    if (Date.now() > deadline) throw new Error(`no '${title}' toast opened`);
    await page.clock.runFor(50);
  }
}

/** The toast titled `title`, opened on the held clock, closes 5 s later (checked 200 ms either side); the clock then runs again. */
async function expectToastLastsFiveSeconds(page: Page, title: string) {
  const { opened } = await toastTimes(page, title);
  const elapsed = await page.evaluate((since) => performance.now() - since, opened);
  await page.clock.runFor(4800 - elapsed);
  expect((await toastTimes(page, title))?.closed).toBeUndefined();
  await page.clock.runFor(400);
  await expect.poll(async () => (await toastTimes(page, title))?.closed).toBeDefined();
  const lifetime = (await toastTimes(page, title)).closed! - opened;
  expect(lifetime).toBeGreaterThanOrEqual(4800);
  expect(lifetime).toBeLessThanOrEqual(5200);
  await page.clock.resume();
}

/** No toast with this title is on screen during `ms`. */
async function neverShows(page: Page, title: string, ms: number) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    expect(await toastItem(page, title).count()).toBe(0);
    await page.waitForTimeout(100);
  }
}

describe("the MyDoge double behaves as the extension", () => {
  test("created at load, methods on its prototype, one popup at a time", async () => {
    const { page, mydoge } = await open({ connected: true });
    await page.goto("/");
    const shape = await page.evaluate(() => {
      const doge = (window as unknown as { doge: Record<string, unknown> }).doge;
      const proto = Object.getPrototypeOf(doge) as Record<string, unknown>;
      return {
        isMyDoge: doge.isMyDoge,
        own: Object.keys(doge),
        onProto: ["connect", "getConnectionStatus", "getBalance", "disconnect", "requestSignedMessage"].every(
          (name) => typeof proto[name] === "function",
        ),
      };
    });
    expect(shape).toEqual({ isMyDoge: true, own: ["isMyDoge"], onProto: true });

    const answers = await page.evaluate(async () => {
      const doge = (window as unknown as { doge: { requestSignedMessage(d: { message: string }): Promise<{ signedMessage: string }> } })
        .doge;
      const empty = await doge.requestSignedMessage({ message: "" }).catch((error: Error) => error.message);
      const [first, second] = await Promise.all([
        doge.requestSignedMessage({ message: "one" }),
        doge.requestSignedMessage({ message: "two" }),
      ]);
      return { empty, first: first.signedMessage, second: second.signedMessage };
    });
    expect(answers.empty).toBe("Invalid data");
    expect(Buffer.from(answers.first, "base64")).toHaveLength(65);
    expect(Buffer.from(answers.second, "base64")).toHaveLength(65);
    const popups = await mydoge.popups(page);
    expect(popups.map((popup) => popup.kind)).toEqual(["sign", "sign"]);
    // The second opened only after the first was answered (and the extension's 500 ms pause).
    expect(popups[1].openedAt).toBeGreaterThanOrEqual(popups[0].closedAt + 450);
  });
});

describe("detection", () => {
  test("a page whose load takes over 5 s still finds MyDoge (created at load, after the 5 s polling)", async () => {
    const { page, mydoge } = await open();
    // A slow image, added before load, holds the window's load event back ~9 s (past the 5 s of polling,
    // which start when the page has hydrated).
    await page.route("**/__slow-load.gif", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 9000));
      await route.fulfill({ contentType: "image/gif", body: Buffer.from("R0lGODlhAQABAAAAACwAAAAAAQABAAA=", "base64") }).catch(() => {});
    });
    await page.addInitScript(() => {
      document.addEventListener("DOMContentLoaded", () => {
        const image = document.createElement("img");
        image.src = "/__slow-load.gif";
        image.alt = "";
        document.body.appendChild(image);
      });
    });
    const started = Date.now();
    await page.goto("/", { waitUntil: "domcontentloaded" });
    await header(page).getByRole("button", { name: "Install MyDoge" }).waitFor();
    // Past the 5 s of polling, the window has not loaded and MyDoge is not there yet.
    await page.waitForTimeout(Math.max(0, 6000 - (Date.now() - started)));
    expect(await page.evaluate(() => [document.readyState, typeof (window as { doge?: unknown }).doge])).toEqual([
      "interactive",
      "undefined",
    ]);
    // At load MyDoge appears and the page offers to connect.
    await connectButton(page).waitFor({ timeout: 15_000 });
    expect(Date.now() - started).toBeGreaterThan(8000);
    expect(await page.evaluate(() => document.readyState)).toBe("complete");
    await connectButton(page).click();
    await walletButton(page, mydoge.address).waitFor();
    await waitForToast(page, "Wallet Connected");
  });
});

describe("connecting", () => {
  test("declined ('Unable to connect to MyDoge') and closed popup ('Request rejected by user') both show 'Connection Failed'", async () => {
    const { page, mydoge } = await open();
    await page.goto("/");
    await mydoge.setBehaviour(page, { connect: "decline" });
    await connectButton(page).click();
    await waitForToast(page, "Connection Failed", "Failed to connect to MyDoge wallet.");
    expect(await toastItem(page, "Connection Failed").getAttribute("data-variant")).toBe("destructive");
    await connectButton(page).waitFor();

    await mydoge.setBehaviour(page, { connect: "close" });
    await connectButton(page).click();
    await page.waitForFunction(() => (window as unknown as { __mydogeTest: { popups: unknown[] } }).__mydogeTest.popups.length === 2);
    await waitForToast(page, "Connection Failed", "Failed to connect to MyDoge wallet.");
    await connectButton(page).waitFor();
    expect((await mydoge.popups(page)).map((popup) => popup.outcome)).toEqual(["Unable to connect to MyDoge", "Request rejected by user"]);
    expect(
      await page.evaluate(() =>
        (window as unknown as { doge: { getConnectionStatus(): Promise<unknown> } }).doge
          .getConnectionStatus()
          .catch((e: Error) => e.message),
      ),
    ).toBe("MyDoge is not connected to this website");
  });

  test("'Wallet Connected' and 'Wallet Disconnected' are success toasts lasting 5 s", async () => {
    const { page, mydoge } = await open();
    await page.clock.install();
    await page.goto("/");
    await watchToasts(page);
    // Away from the toasts (bottom right): hovering them pauses their timer.
    await page.mouse.move(5, 400);
    await holdClock(page);
    await connectButton(page).click();
    await runUntilToast(page, "Wallet Connected");
    await walletButton(page, mydoge.address).waitFor();
    await waitForToast(page, "Wallet Connected", "Your wallet is connected.");
    expect(await toastItem(page, "Wallet Connected").getAttribute("data-variant")).toBe("success");
    await expectToastLastsFiveSeconds(page, "Wallet Connected");

    await walletButton(page, mydoge.address).click();
    const disconnect = page.getByRole("menuitem", { name: "Disconnect" });
    await disconnect.waitFor();
    await holdClock(page);
    await disconnect.click();
    await page.mouse.move(5, 400);
    await runUntilToast(page, "Wallet Disconnected");
    await connectButton(page).waitFor();
    await waitForToast(page, "Wallet Disconnected", "Your wallet is disconnected.");
    expect(await toastItem(page, "Wallet Disconnected").getAttribute("data-variant")).toBe("success");
    await expectToastLastsFiveSeconds(page, "Wallet Disconnected");
  });
});

describe("signing", () => {
  test("a refused signature and a closed signing popup are 'Signature Cancelled'; nothing is staked", async () => {
    const { page, mydoge } = await open({ connected: true });
    await page.goto("/");
    await card(page, "Spooks #2").waitFor();
    await mydoge.setBehaviour(page, { sign: "refuse" });
    await signAndStake(page, "Spooks #2");
    await waitForToast(page, "Signature Cancelled", "Staking operation was cancelled.");
    expect(await card(page, "Spooks #2").getAttribute("data-staked")).toBe("false");

    await mydoge.setBehaviour(page, { sign: "close" });
    await signAndStake(page, "Spooks #2");
    await page.waitForFunction(() => (window as unknown as { __mydogeTest: { popups: unknown[] } }).__mydogeTest.popups.length === 2);
    await waitForToast(page, "Signature Cancelled", "Staking operation was cancelled.");
    expect((await mydoge.popups(page)).map((popup) => popup.outcome)).toEqual(["User refused signed message", "Request rejected by user"]);
    expect(await card(page, "Spooks #2").getAttribute("data-staked")).toBe("false");
    await walletButton(page, mydoge.address).waitFor();
    expect(mydoge.signed).toEqual([]);
    expect(await openStakes()).not.toContain(world.holderItems[1].inscriptionId);
  });

  test("a wallet locked while signing shows the wallet disconnected, not 'Signature Cancelled'", async () => {
    const { page, mydoge } = await open({ connected: true });
    await page.goto("/");
    await card(page, "Spooks #2").waitFor();
    await mydoge.setBehaviour(page, { sign: "lock" });
    await signAndStake(page, "Spooks #2");
    await waitForToast(page, CONNECTION_LOST_TOAST.title, CONNECTION_LOST_TOAST.description);
    await connectButton(page).waitFor();
    await page.getByText("Connect your wallet to see Spooks").waitFor();
    expect(await walletButton(page, mydoge.address).count()).toBe(0);
    await neverShows(page, "Signature Cancelled", 1000);
    expect((await mydoge.popups(page)).map((popup) => popup.outcome)).toEqual(["MyDoge is not connected to this website"]);
    expect(mydoge.signed).toEqual([]);
    expect(await openStakes()).not.toContain(world.holderItems[1].inscriptionId);

    // Connecting again works.
    await mydoge.setBehaviour(page, { sign: "approve" });
    await connectButton(page).click();
    await walletButton(page, mydoge.address).waitFor();
  });

  test("MyDoge 1.0.1-1.1.1's hex signature is accepted end to end: the stake succeeds", async () => {
    const { page, mydoge } = await open({ connected: true, build: "hex-signature" });
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/stake") {
        sent.push((JSON.parse(request.postData() ?? "{}") as { signature?: string }).signature ?? "");
      }
    });
    await page.goto("/");
    await card(page, "Spooks #3").waitFor();
    await signAndStake(page, "Spooks #3");
    await waitForToast(page, "Spook Staked!");
    await card(page, "Spooks #3").getByText("STAKED").waitFor();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^[0-9a-f]{130}$/);
    expect(mydoge.signed).toHaveLength(1);
    expect(await openStakes()).toContain(world.holderItems[2].inscriptionId);
  });

  test("a provider without requestSignedMessage (isMyDogeMask only) gets the 'Update MyDoge' message", async () => {
    const { page, mydoge } = await open({ connected: true, build: "no-signing" });
    await page.goto("/");
    expect(
      await page.evaluate(() => {
        const doge = (window as unknown as { doge: Record<string, unknown> }).doge;
        return [doge.isMyDoge ?? null, doge.isMyDogeMask, typeof doge.requestSignedMessage];
      }),
    ).toEqual([null, true, "undefined"]);
    // Detected and connected as before.
    await walletButton(page, mydoge.address).waitFor();
    await card(page, "Spooks #4").waitFor();
    await signAndStake(page, "Spooks #4");
    await waitForToast(page, UPDATE_MYDOGE_TOAST.title, UPDATE_MYDOGE_TOAST.description);
    await neverShows(page, "Signature Cancelled", 500);
    expect(await toastItem(page, "Staking Failed").count()).toBe(0);
    expect(await card(page, "Spooks #4").getAttribute("data-staked")).toBe("false");
    await walletButton(page, mydoge.address).waitFor();
    expect(await openStakes()).not.toContain(world.holderItems[3].inscriptionId);
  });
});

describe("MyDoge calls that hang (after the extension reloads)", () => {
  /** Waits until the double has a hung popup of `kind`, then moves the page's clock past the timeout. */
  async function hangThenTimeOut(page: Page, mydoge: Awaited<ReturnType<typeof open>>["mydoge"], kind: "connect" | "sign") {
    await page.waitForFunction(
      (kind) =>
        (window as unknown as { __mydogeTest: { popups: { kind: string; outcome: string }[] } }).__mydogeTest.popups.some(
          (popup) => popup.kind === kind && popup.outcome === "hung",
        ),
      kind,
    );
    // Nothing is shown before the 2 minutes are up. The page's clock keeps running while the test looks (over a
    // second on a loaded machine, the last CI's red): it is stopped one second before the call's deadline.
    const hung = (await mydoge.popups(page)).find((popup) => popup.kind === kind && popup.outcome === "hung")!;
    const clock = await page.evaluate(() => ({ performanceNow: performance.now(), now: Date.now() }));
    const waited = clock.performanceNow - hung.openedAt;
    await page.clock.pauseAt(clock.now + MYDOGE_CALL_TIMEOUT_MS - 1000 - waited);
    expect(await toastItem(page, MYDOGE_TIMEOUT_TOAST.title).count()).toBe(0);
    await page.clock.fastForward(1000);
    await page.clock.resume();
    await waitForToast(page, MYDOGE_TIMEOUT_TOAST.title, MYDOGE_TIMEOUT_TOAST.description);
    expect(await toastItem(page, MYDOGE_TIMEOUT_TOAST.title).getAttribute("data-variant")).toBe("destructive");
    expect((await mydoge.popups(page)).filter((popup) => popup.kind === kind).map((popup) => popup.outcome)).toContain("hung");
  }

  test("a hung connect and a hung signature each time out after 2 minutes with 'MyDoge Not Responding'; after reopening MyDoge the next call works", async () => {
    const { page, mydoge } = await open();
    await page.clock.install();
    await page.goto("/");

    await mydoge.setBehaviour(page, { connect: "hang" });
    await connectButton(page).click();
    await hangThenTimeOut(page, mydoge, "connect");
    await neverShows(page, "Connection Failed", 500);
    // The button is free again at once (not waiting behind the hung call); the holder reopens MyDoge.
    await mydoge.reopen(page);
    await mydoge.setBehaviour(page, { connect: "approve" });
    await connectButton(page).click();
    await walletButton(page, mydoge.address).waitFor();

    await card(page, "Spooks #1").waitFor();
    // The first 'MyDoge Not Responding' (10 s) has gone before the signature hangs.
    await page.clock.fastForward(11_000);
    await toastItem(page, MYDOGE_TIMEOUT_TOAST.title).waitFor({ state: "detached" });
    await mydoge.setBehaviour(page, { sign: "hang" });
    await signAndStake(page, "Spooks #1");
    await hangThenTimeOut(page, mydoge, "sign");
    await neverShows(page, "Signature Cancelled", 500);
    expect(await card(page, "Spooks #1").getAttribute("data-staked")).toBe("false");
    expect(await openStakes()).not.toContain(world.holderItems[0].inscriptionId);

    await mydoge.reopen(page);
    await mydoge.setBehaviour(page, { sign: "approve" });
    await signAndStake(page, "Spooks #1");
    await page.waitForFunction(() => document.querySelector('[data-testid="item-card"][data-staked="true"]') !== null);
    await expect.poll(openStakes).toContain(world.holderItems[0].inscriptionId);
    expect(mydoge.signed).toHaveLength(1);
  });

  test("without reopening MyDoge, a call queued behind the hung one times out too (the double holds its queue as MyDoge does)", async () => {
    const { page, mydoge } = await open();
    await page.clock.install();
    await page.goto("/");
    await mydoge.setBehaviour(page, { connect: "hang" });
    await connectButton(page).click();
    await hangThenTimeOut(page, mydoge, "connect");
    await mydoge.setBehaviour(page, { connect: "approve" });
    await connectButton(page).click();
    await page.clock.fastForward(MYDOGE_CALL_TIMEOUT_MS);
    await connectButton(page).waitFor();
    expect((await mydoge.popups(page)).map((popup) => popup.outcome)).toEqual(["hung"]);
  });
});
