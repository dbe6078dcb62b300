/**
 * Browser side of the end-to-end tests: Debian's Chromium driven by playwright-core, a MyDoge stand-in
 * injected as `window.doge` that signs in Node with the real signer (app/domain/signature.ts, MyDoge's
 * format), and screenshots at desktop and phone sizes.
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { addressOfPrivateKey, signMessage } from "../../../app/domain/signature.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
export const SCREENSHOT_DIR = path.join(ROOT, "test-results", "screenshots");
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/**
 * Debian's chromium-headless-shell (CHROMIUM_PATH overrides): Chromium's headless build, the one Playwright
 * itself runs for headless pages. The same Blink and V8 as the full browser, without its windowing:
 * navigation.test.ts took 50-54 s instead of 63-92 s, and 27 s of CPU instead of 33-39 s (issue 36).
 */
export const CHROMIUM_EXECUTABLE = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  // No host but the loopback resolves: pictures and links to outside hosts fail at once, as if offline. (A
  // route in each context did this before: it held every request of every page until Node let it through.)
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: CHROMIUM_ARGS });
}

export type PageProblems = { errors: string[] };

/**
 * A fresh context and page at 1280×800 that reaches no host but the loopback (CHROMIUM_ARGS: image fallbacks
 * to outside hosts fail at once), collecting uncaught errors, console errors (failed
 * resource loads excepted: image fallbacks make them on purpose) and every Content-Security-Policy
 * violation the page reports (`securitypolicyviolation`), so each test also proves the pages run under
 * the server's CSP.
 *
 * Its visitor prefers reduced motion (the app honours it: each animation lasts 0.01 ms and runs once) unless
 * `reducedMotion: "no-preference"` is asked for. The app's infinite animation (the floating ghost of every
 * card whose picture is missing, as all are here) made Chromium draw every open page 60 times a second; in
 * four of the heaviest browser files its compositor's CPU fell from 97 s to 59 s with it. The whole journey
 * (tests/e2e/journey.test.ts) runs with motion, as most visitors see the site.
 */
export async function newPage(
  browser: Browser,
  baseUrl: string,
  options: {
    ignoreHTTPSErrors?: boolean;
    viewport?: { width: number; height: number };
    timezoneId?: string;
    reducedMotion?: "reduce" | "no-preference";
  } = {},
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: baseUrl, reducedMotion: "reduce", ...options });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: PageProblems = { errors: [] };
  await page.exposeFunction("__spooksCspViolation", (text: string) => problems.errors.push(`csp violation: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __spooksCspViolation: (text: string) => void }).__spooksCspViolation;
      void report(`${event.violatedDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  page.on("pageerror", (error) => problems.errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (/Failed to load resource|net::ERR_/.test(text)) return;
    problems.errors.push(`console.error: ${text}`);
  });
  return { context, page, problems };
}

export type MyDogeBuild =
  /** 1.2 and later (1.3.1 as REAL-WORLD.md reads it): `isMyDoge`, base64 signatures. */
  | "current"
  /** 1.0.1-1.1.1: `isMyDoge`, the signature as 130 hex characters. */
  | "hex-signature"
  /** Old builds that set only `isMyDogeMask` and have no `requestSignedMessage`. */
  | "no-signing";

export type MyDogeOptions = {
  privateKeyHex: string;
  /** Koinu, as MyDoge reports it (a string on the wire). Default 4,206.90 DOGE. */
  balanceKoinu?: number;
  /** Already connected to this site when the page loads (MyDoge remembers sites). Default false. */
  connected?: boolean;
  /** Which build of the extension to play. Default "current". */
  build?: MyDogeBuild;
  /** How long the holder takes to answer a popup (connect, sign). Default 150 ms (the real holder: ~1.5 s). */
  popupMs?: number;
};

/** What the holder does with the next connect popups: approve, decline ('Unable to connect to MyDoge'), close it. */
export type ConnectOutcome = "approve" | "decline" | "close" | "hang";
/**
 * What happens to the next signing popups: approve; refuse ('User refused signed message'); close it
 * ('Request rejected by user'); the wallet locks meanwhile (the not-connected message, and the site's
 * connection is gone); the wallet fails ('Failed to sign message').
 */
export type SignOutcome = "approve" | "refuse" | "close" | "lock" | "fail" | "hang";

export type MyDogeBehaviour = {
  connect?: ConnectOutcome;
  sign?: SignOutcome;
  /** Shorthand kept for older tests: decline the next connects (connect: "decline"). */
  rejectConnect?: boolean;
  /** Shorthand kept for older tests: refuse the next signatures (sign: "refuse"). */
  rejectSign?: boolean;
  /** Extra time the holder takes on signing popups. */
  signDelayMs?: number;
  /** The holder leaves signing popups open until this is set back to false (no race with a clock). */
  holdSigning?: boolean;
};

/** One popup as the double served it (page clock, ms). */
export type MyDogePopup = { kind: "connect" | "sign"; openedAt: number; closedAt: number; outcome: string };

export type MyDogeHandle = {
  address: string;
  /** Every message signed so far, in order. */
  signed: string[];
  /** Changes how the holder answers the next popups (connect, sign) and how long signing takes. */
  setBehaviour(page: Page, behaviour: MyDogeBehaviour): Promise<void>;
  /** Locks the wallet now: the site's connection is gone (as when MyDoge locks itself). */
  lock(page: Page): Promise<void>;
  /** The popups served so far on the current document, in order. */
  popups(page: Page): Promise<MyDogePopup[]>;
  /**
   * The holder reopens MyDoge: the requests queued behind a hung one are served again (the hung call
   * itself never answers).
   */
  reopen(page: Page): Promise<void>;
};

/**
 * A stand-in for the MyDoge extension (version 1.3.1 as REAL-WORLD.md describes it), added to every
 * document of `page` (call before its first navigation):
 * - `window.doge` is created only at the window's `load` event, from a class whose methods live on its
 *   prototype (with private fields, so a detached call fails as it does in the extension); then
 *   `doge#initialized` fires, once. `isMyDoge: true`, or for `build: "no-signing"` only `isMyDogeMask`
 *   and no `requestSignedMessage`.
 * - `connect()` → `{ approved, address, publicKey, balance: "<koinu>" }`; declined: rejects
 *   `Unable to connect to MyDoge`; popup closed: `Request rejected by user`.
 * - `getConnectionStatus()` → `{ connected: true, address, selectedWalletAddress }`, else rejects
 *   `MyDoge is not connected to this website`; `getBalance()` → `{ balance: "<koinu>", address }`;
 *   `disconnect()` → `{ disconnected: true }`. The site's connection survives reloads (localStorage).
 * - `requestSignedMessage({ message })`: `Invalid data` at once for an empty message; else after the popup
 *   `{ signedMessage }` signed in Node by the real signer (Bitcoin magic, compressed key; base64, or 130 hex
 *   characters for `build: "hex-signature"`), or the rejections of `SignOutcome`.
 * - Popup requests are served one at a time: the next opens 500 ms after the previous answered.
 * - `hang` (connect or sign): the call never settles and blocks every popup queued behind it, as after the
 *   extension reloads (REAL-WORLD.md), until the holder reopens MyDoge (`reopen`).
 */
export async function injectMyDoge(
  page: Page,
  { privateKeyHex, balanceKoinu = 420_690_000_000, connected = false, build = "current", popupMs = 150 }: MyDogeOptions,
): Promise<MyDogeHandle> {
  const key = hexToBytes(privateKeyHex);
  const address = addressOfPrivateKey(key);
  const signed: string[] = [];
  await page.exposeFunction("__spooksTestSign", (message: string, asHex: boolean) => {
    signed.push(message);
    const signature = signMessage(key, message);
    return asHex ? Buffer.from(signature, "base64").toString("hex") : signature;
  });
  await page.addInitScript(
    ({ address, balance, connected, build, popupMs }) => {
      const STORAGE = "__mydoge_test_connected";
      const NOT_CONNECTED = "MyDoge is not connected to this website";
      /** The extension's own wait between a popup's answer and the next popup. */
      const POPUP_GAP_MS = 500;
      type Flags = {
        connect?: string;
        sign?: string;
        rejectConnect?: boolean;
        rejectSign?: boolean;
        signDelayMs?: number;
        holdSigning?: boolean;
        popups: { kind: string; openedAt: number; closedAt: number; outcome: string }[];
        lock(): void;
        /** Releases the queue held by hung calls (the holder reopened MyDoge). */
        reopen(): void;
      };
      const read = () => {
        try {
          return window.localStorage.getItem(STORAGE) === address;
        } catch {
          return false;
        }
      };
      const write = (value: boolean) => {
        try {
          if (value) window.localStorage.setItem(STORAGE, address);
          else window.localStorage.removeItem(STORAGE);
        } catch {
          // no storage on this document
        }
      };
      /** The queues hung calls hold, each released when the holder reopens MyDoge. */
      const hung: (() => void)[] = [];
      const flags: Flags = { popups: [], lock: () => write(false), reopen: () => hung.splice(0).forEach((release) => release()) };
      /** A call that never answers and holds the queue until MyDoge is reopened. */
      const hang = (popup: { outcome: string; closedAt: number }) =>
        new Promise<never>(() => {
          popup.outcome = "hung";
          flags.popups.push(popup as never);
        });
      (window as unknown as { __mydogeTest: Flags }).__mydogeTest = flags;
      if (connected) write(true);
      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const sign = (message: string) =>
        (window as unknown as { __spooksTestSign: (m: string, hex: boolean) => Promise<string> }).__spooksTestSign(
          message,
          build === "hex-signature",
        );

      class MyDogeWallet {
        #queue: Promise<unknown> = Promise.resolve();
        declare isMyDoge?: boolean;
        declare isMyDogeMask?: boolean;

        constructor() {
          if (build === "no-signing") this.isMyDogeMask = true;
          else this.isMyDoge = true;
        }

        /** Serves popups one at a time, as the extension's request queue does. */
        #popup<T>(kind: "connect" | "sign", run: (hangHere: () => Promise<never>) => Promise<T>): Promise<T> {
          let release = () => {};
          const released = new Promise<void>((resolve) => (release = resolve));
          const result = this.#queue.then(async () => {
            const popup = { kind, openedAt: performance.now(), closedAt: 0, outcome: "approve" };
            const hangHere = () => {
              hung.push(release);
              return hang(popup);
            };
            try {
              return await run(hangHere);
            } catch (error) {
              popup.outcome = (error as Error).message;
              throw error;
            } finally {
              popup.closedAt = performance.now();
              flags.popups.push(popup);
            }
          });
          this.#queue = Promise.race([result, released]).then(
            () => wait(POPUP_GAP_MS),
            () => wait(POPUP_GAP_MS),
          );
          return result;
        }

        connect() {
          return this.#popup("connect", async (hangHere) => {
            await wait(popupMs);
            const outcome = flags.rejectConnect ? "decline" : (flags.connect ?? "approve");
            if (outcome === "hang") return hangHere();
            if (outcome === "decline") throw new Error("Unable to connect to MyDoge");
            if (outcome === "close") throw new Error("Request rejected by user");
            write(true);
            return { approved: true, address, publicKey: "", balance: String(balance) };
          });
        }

        async getConnectionStatus() {
          if (!read()) throw new Error(NOT_CONNECTED);
          return { connected: true, address, selectedWalletAddress: address };
        }

        async getBalance() {
          if (!read()) throw new Error(NOT_CONNECTED);
          return { balance: String(balance), address };
        }

        async disconnect() {
          write(false);
          return { disconnected: true };
        }

        requestSignedMessage(data: { message: string }) {
          if (!data?.message) return Promise.reject(new Error("Invalid data"));
          return this.#popup("sign", async (hangHere) => {
            if (!read()) throw new Error(NOT_CONNECTED);
            await wait(popupMs + (flags.signDelayMs ?? 0));
            while (flags.holdSigning) await wait(20);
            const outcome = flags.rejectSign ? "refuse" : (flags.sign ?? "approve");
            if (outcome === "hang") return hangHere();
            if (outcome === "lock") write(false);
            // Locked while the popup was open (here or through the handle's lock()).
            if (!read()) throw new Error(NOT_CONNECTED);
            if (outcome === "refuse") throw new Error("User refused signed message");
            if (outcome === "close") throw new Error("Request rejected by user");
            if (outcome === "fail") throw new Error("Failed to sign message");
            return { signedMessage: await sign(data.message) };
          });
        }
      }
      if (build === "no-signing") {
        delete (MyDogeWallet.prototype as { requestSignedMessage?: unknown }).requestSignedMessage;
      }

      // MyDoge creates the provider at the window's load event, not before, and announces it once.
      window.addEventListener(
        "load",
        () => {
          (window as unknown as { doge: unknown }).doge = new MyDogeWallet();
          window.dispatchEvent(new Event("doge#initialized"));
        },
        { once: true },
      );
    },
    { address, balance: balanceKoinu, connected, build, popupMs },
  );
  return {
    address,
    signed,
    async setBehaviour(target, behaviour) {
      await target.evaluate((next) => Object.assign((window as unknown as { __mydogeTest: object }).__mydogeTest, next), behaviour);
    },
    async lock(target) {
      await target.evaluate(() => (window as unknown as { __mydogeTest: { lock(): void } }).__mydogeTest.lock());
    },
    async reopen(target) {
      await target.evaluate(() => (window as unknown as { __mydogeTest: { reopen(): void } }).__mydogeTest.reopen());
    },
    async popups(target) {
      return target.evaluate(() => (window as unknown as { __mydogeTest: { popups: MyDogePopup[] } }).__mydogeTest.popups.slice());
    },
  };
}

/** Saves `name-desktop.png` (1280×800) and `name-phone.png` (390×844) under test-results/screenshots. */
export async function screenshot(page: Page, name: string, { fullPage = false }: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  const settle = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.setViewportSize(DESKTOP);
  await settle();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-desktop.png`), fullPage, animations: "disabled" });
  await page.setViewportSize(PHONE);
  await settle();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-phone.png`), fullPage, animations: "disabled" });
  await page.setViewportSize(before);
  await settle();
}

/** Waits for a toast with `title` (and `description` when given) to be on screen. */
export async function waitForToast(page: Page, title: string, description?: string): Promise<void> {
  const toast = page.locator("li[data-variant]").filter({ hasText: title });
  await toast.getByText(title, { exact: true }).waitFor();
  if (description !== undefined) await toast.getByText(description, { exact: true }).waitFor();
}

/**
 * Closes the open dialog with Escape and waits until no dialog is left. Escape closes the newest layer
 * first: a toast that appeared over the dialog takes the first press.
 */
export async function closeDialogWithEscape(page: Page): Promise<void> {
  const dialogs = page.locator('[role="dialog"], [role="alertdialog"]');
  for (let press = 1; ; press++) {
    await page.keyboard.press("Escape");
    try {
      await dialogs.first().waitFor({ state: "detached", timeout: press < 3 ? 1500 : 10_000 });
      return;
    } catch (error) {
      if (press >= 3) throw error;
    }
  }
}
