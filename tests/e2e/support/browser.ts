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

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

export type PageProblems = { errors: string[] };

/**
 * A fresh context and page at 1280×800 that never leaves the test server (other hosts are aborted, so
 * image fallbacks to outside hosts fail at once), collecting uncaught errors, console errors (failed
 * resource loads excepted: image fallbacks make them on purpose) and every Content-Security-Policy
 * violation the page reports (`securitypolicyviolation`), so each test also proves the pages run under
 * the server's CSP.
 */
export async function newPage(
  browser: Browser,
  baseUrl: string,
  options: { ignoreHTTPSErrors?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: baseUrl, ...options });
  const origin = new URL(baseUrl).origin;
  await context.route(
    (url) => url.origin !== origin && url.protocol.startsWith("http"),
    (route) => route.abort("blockedbyclient"),
  );
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

export type MyDogeOptions = {
  privateKeyHex: string;
  /** Koinu, as MyDoge reports it (a string on the wire). Default 4,206.90 DOGE. */
  balanceKoinu?: number;
  /** Already connected to this site when the page loads (MyDoge remembers sites). Default false. */
  connected?: boolean;
};

export type MyDogeHandle = {
  address: string;
  /** Every message signed so far, in order. */
  signed: string[];
  /** Make the next requests be declined by the holder (connect, sign) or accepted again; slow signing down. */
  setBehaviour(page: Page, behaviour: { rejectConnect?: boolean; rejectSign?: boolean; signDelayMs?: number }): Promise<void>;
};

/**
 * Defines `window.doge` before any page script runs, with MyDoge's interface (DECISIONS "Wallet extension"):
 * connect resolves { approved, address, publicKey, balance }, getConnectionStatus rejects while not
 * connected, getBalance answers a koinu string, requestSignedMessage resolves { signedMessage } signed with
 * `privateKeyHex` by the real signer (Bitcoin magic, compressed key), and 'doge#initialized' fires.
 * Call before the first navigation of `page`.
 */
export async function injectMyDoge(page: Page, { privateKeyHex, balanceKoinu = 420_690_000_000, connected = false }: MyDogeOptions): Promise<MyDogeHandle> {
  const key = hexToBytes(privateKeyHex);
  const address = addressOfPrivateKey(key);
  const signed: string[] = [];
  await page.exposeFunction("__spooksTestSign", (message: string) => {
    signed.push(message);
    return signMessage(key, message);
  });
  await page.addInitScript(
    ({ address, balance, connected }) => {
      const STORAGE = "__mydoge_test_connected";
      const flags: { rejectConnect?: boolean; rejectSign?: boolean; signDelayMs?: number } = {};
      (window as unknown as { __mydogeTest: typeof flags }).__mydogeTest = flags;
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
      if (connected) write(true);
      const sign = (message: string) =>
        (window as unknown as { __spooksTestSign: (m: string) => Promise<string> }).__spooksTestSign(message);
      (window as unknown as { doge: unknown }).doge = {
        isMyDoge: true,
        async connect() {
          if (flags.rejectConnect) throw new Error("User rejected the request.");
          write(true);
          return { approved: true, address, publicKey: "", balance: String(balance) };
        },
        async getConnectionStatus() {
          if (!read()) throw new Error("Not connected");
          return { connected: true, address };
        },
        async getBalance() {
          if (!read()) throw new Error("Not connected");
          return { address, balance: String(balance) };
        },
        async disconnect() {
          write(false);
          return { disconnected: true };
        },
        async requestSignedMessage({ message }: { message: string }) {
          if (!read()) throw new Error("Not connected");
          if (flags.signDelayMs) await new Promise((resolve) => setTimeout(resolve, flags.signDelayMs));
          if (flags.rejectSign) throw new Error("User rejected the request.");
          return { signedMessage: await sign(message) };
        },
      };
      window.dispatchEvent(new Event("doge#initialized"));
    },
    { address, balance: balanceKoinu, connected },
  );
  return {
    address,
    signed,
    async setBehaviour(target, behaviour) {
      await target.evaluate((next) => Object.assign((window as unknown as { __mydogeTest: object }).__mydogeTest, next), behaviour);
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
