/**
 * Behind a real TLS reverse proxy (Debian's nginx, self-signed certificate, on 127.0.0.1) with
 * TRUST_PROXY, in Chromium: the admin signs in and uses the panel's form actions (React Router's own
 * origin check sees the https origin the proxy reports), the session cookie is `__Host-`, Secure and
 * SameSite=Strict, every page answers with HSTS, and the pages run under the Content-Security-Policy with
 * no violation reported. CI installs nginx (.ci/run); elsewhere the file is skipped when it is missing.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getBalanceUnits } from "../../db/queries/points.server.ts";
import { NGINX, startNginx, type NginxProxy } from "../support/nginx-proxy.ts";
import { injectMyDoge, launchBrowser, newPage, waitForToast, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

if (!NGINX && process.env.CI) throw new Error("nginx is not installed: .ci/run installs it for this test");

describe.skipIf(!NGINX)("behind an HTTPS reverse proxy (nginx)", () => {
  let world: E2eWorld;
  let proxy: NginxProxy;
  let browser: Browser;
  const opened: { context: BrowserContext; problems: PageProblems }[] = [];

  async function open(): Promise<{ page: Page; problems: PageProblems }> {
    const { context, page, problems } = await newPage(browser, proxy.url, { ignoreHTTPSErrors: true });
    page.setDefaultTimeout(15_000);
    opened.push({ context, problems });
    return { page, problems };
  }

  beforeAll(async () => {
    [world, browser] = await Promise.all([
      startE2eWorld({ holderOwns: 2, perCollection: 4, env: { TRUST_PROXY: "loopback" } }),
      launchBrowser(),
    ]);
    await world.addPoints(world.holder.address, 100);
    proxy = await startNginx(world.url);
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => {});
    await browser?.close();
    await proxy?.stop();
    await world?.close();
  });

  test("every page loads and works under the CSP, with HSTS, and no violation reported", async () => {
    const { page, problems } = await open();
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    for (const [route, heading] of [
      ["/", "Your Spooks"],
      ["/rewards", "Spook Rewards"],
      ["/governance", "Spook Governance"],
      ["/admin", "Admin Panel"],
    ] as const) {
      const response = await page.goto(route);
      expect(response?.status(), route).toBe(200);
      expect(response?.headers()["strict-transport-security"], route).toBe("max-age=31536000");
      expect(response?.headers()["content-security-policy"], route).toMatch(/script-src 'self' 'nonce-[^']+';/);
      await page.getByRole("heading", { name: heading }).first().waitFor();
    }
    // Client-side navigation too (the router's own fetches and scripts).
    await page.getByRole("banner").getByRole("link", { name: "Rewards", exact: true }).click();
    await page.getByRole("heading", { name: "Spook Rewards" }).waitFor();
    expect(problems.errors).toEqual([]);

    // The policy is enforced and its violations do reach the test: an inline script without the nonce.
    const ran = await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__injected = true";
      document.body.append(script);
      return new Promise((resolve) => setTimeout(() => resolve((window as unknown as { __injected?: boolean }).__injected ?? false), 200));
    });
    expect(ran).toBe(false);
    await expect.poll(() => problems.errors.some((error) => /^csp violation: script-src(-elem)? blocked inline/.test(error))).toBe(true);
    // (Chromium also logs it as a console error.)
    expect(problems.errors.every((error) => /^csp violation|Content Security Policy/.test(error))).toBe(true);
    problems.errors.length = 0;
  });

  test("the admin signs in and uses the panel's form actions; the cookie is __Host-, Secure, SameSite=Strict", async () => {
    const { page, problems } = await open();
    const mydoge = await injectMyDoge(page, { privateKeyHex: world.admin.privateKeyHex, connected: true });
    await page.goto("/admin");
    await page.getByRole("tab", { name: "User Points" }).waitFor();
    expect(mydoge.signed[0]).toMatch(/^127\.0\.0\.1:\d+ wants you to sign in with your Dogecoin account:\n/);
    expect(mydoge.signed[0]).toContain(`\nURI: ${proxy.url}\n`);
    const cookies = await page.context().cookies();
    expect(cookies.map((cookie) => cookie.name)).toContain("__Host-spooks_session");
    expect(cookies.find((cookie) => cookie.name === "__Host-spooks_session")).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: "Strict",
      path: "/",
    });

    // A form action through the proxy: React Router's origin check and ours both see https://127.0.0.1:port.
    const row = page.getByTestId("user-row").filter({ hasText: world.holder.address });
    await row.getByRole("button", { name: `Add points to ${world.holder.address}` }).click();
    const dialog = page.getByRole("dialog", { name: "Add Points" });
    await dialog.getByLabel("Points Amount").fill("25");
    await dialog.getByRole("button", { name: "Add Points" }).click();
    await waitForToast(page, "Points added");
    await row.getByText("125").waitFor();
    expect(await getBalanceUnits(world.db.sql, world.holder.address)).toBe(125 * 2400);
    expect(problems.errors).toEqual([]);
  });
});
