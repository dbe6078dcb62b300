/**
 * The API reference in a real browser: /api/docs renders the served OpenAPI document with Swagger UI
 * from this site's own files, under its own Content-Security-Policy, with no CSP violation or console
 * error; it passes axe (the accessibility test's rules) at both sizes, folded, open and tried out;
 * and Swagger UI is loaded on that page only, never by the app's pages.
 */
import fs from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { newWallet } from "../api/support.ts";
import { ensureAppBuild, startTestServer, type TestServer } from "../support/app-server.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { axeViolations } from "./support/axe.ts";
import { DESKTOP, PHONE, launchBrowser, screenshot } from "./support/browser.ts";
import { usePages } from "./support/pages.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: TestServer;
let browser: Browser;
let buildDir: string;
const pages = usePages();

beforeAll(async () => {
  database = await createTestDatabase();
  buildDir = await ensureAppBuild(); // the build the server below serves (made once per source state)
  [server, browser] = await Promise.all([startTestServer({ sql: database.sql, adminAddress: newWallet().address }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await database?.close();
});

/** A page that records the address of every request it makes. */
async function open(): Promise<{ page: Page; requested: string[] }> {
  const { page } = await pages.open(browser, server.url);
  // Swagger UI parses the whole document and draws every operation before it opens a deep link: on a loaded
  // 2-core machine that alone took over the 10 s other pages get (the last CI's red), and 15-20 s under 8x CPU
  // throttling here.
  page.setDefaultTimeout(30_000);
  const requested: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  return { page, requested };
}

type Document = { info: { title: string }; paths: Record<string, Record<string, { operationId: string; tags?: string[] }>> };

describe("/api/docs", () => {
  test("renders every operation of the served document, from this site's files only, under its own CSP", async () => {
    const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Document;
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, ...operation })),
    );
    expect(operations.length).toBeGreaterThan(0);

    const { page, requested } = await open();
    const response = await page.goto("/api/docs");
    expect(response?.status()).toBe(200);
    const csp = (await response!.allHeaders())["content-security-policy"];
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("default-src 'none'");

    await page.getByRole("heading", { name: /Spooks API/ }).waitFor();
    await page.getByRole("heading", { name: "Signed messages" }).waitFor();
    await screenshot(page, "api-docs-introduction");
    // Every operation is listed: its method, path and operationId.
    await page.locator(".opblock").first().waitFor();
    expect(await page.locator(".opblock").count()).toBe(operations.length);
    for (const { path, method, operationId, tags } of operations) {
      const block = page.locator(`[id="${operationElementId(tags, operationId)}"]`);
      expect(await block.count(), `${method} ${path}`).toBe(1);
    }
    await page.getByText("/api/rewards/{address}", { exact: true }).first().waitFor();

    // An operation opens on its answers, with the documented example.
    const rewards = page.locator(`[id="${operationElementId(document.paths["/api/rewards/{address}"].get.tags, "getRewards")}"]`);
    await rewards.locator(".opblock-summary").first().click();
    await rewards.getByText("Invalid Dogecoin address").first().waitFor();
    await rewards.getByText("rewardTier").first().waitFor();
    await screenshot(page, "api-docs");

    const origin = new URL(server.url).origin;
    expect(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith("data:"))).toEqual([]);
    expect(requested.some((url) => url.includes("/api/docs/swagger-ui-bundle.js"))).toBe(true);
    expect(requested.some((url) => new URL(url).pathname === "/api/openapi.json")).toBe(true);
    // The app's own bundles are not part of this page.
    expect(requested.filter((url) => new URL(url).pathname.startsWith("/assets/"))).toEqual([]);
  });

  /** /api/docs with its operations drawn (no animation in flight while axe measures colours: newPage's visitor prefers reduced motion). */
  async function openDocs(): Promise<Page> {
    const { page } = await open();
    await page.goto("/api/docs");
    await page.locator(".opblock").first().waitFor();
    await page.getByLabel("Servers").waitFor();
    return page;
  }

  /** axe at both sizes, over the page or only the elements `only` selects; back at desktop size after. */
  async function axeAtBothSizes(page: Page, state: string, only?: string[]): Promise<string[]> {
    const violations: string[] = [];
    for (const [size, viewport] of [
      ["desktop", DESKTOP],
      ["phone", PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      violations.push(...(await axeViolations(page, `/api/docs, ${state} (${size})`, only)));
    }
    await page.setViewportSize(DESKTOP);
    return violations;
  }

  /** A GET (parameters, answers) and a POST (a request body with its example), the first of each. */
  const firstGetAndPost = (page: Page) => ["get", "post"].map((method) => page.locator(`.opblock-${method}`).first());

  async function openOperation(operation: Locator): Promise<void> {
    await operation.locator(".opblock-summary-control").click();
    await operation.locator(".responses-table").first().waitFor();
  }

  // Three tests, not one journey: axe takes seconds on this page (2-3 s a run over every operation here, idle)
  // and Swagger UI as long to draw it; one journey through all of it (26 s idle) outlived its 120 s on a loaded
  // CI machine. Each has that budget to itself.
  test("passes axe at desktop and phone sizes with every operation folded", async () => {
    const page = await openDocs();
    const violations = await axeAtBothSizes(page, "operations folded");
    expect(violations.join("\n"), "axe found serious or critical violations on /api/docs").toBe("");
  }, 120_000);

  test("passes axe at both sizes with a GET and a POST open, then ready to try out", async () => {
    const page = await openDocs();
    const operations = firstGetAndPost(page);
    // Only the two operations change from the folded page (measured whole in the test above), so axe measures them.
    const opened = await Promise.all(operations.map(async (operation) => `[id="${await operation.getAttribute("id")}"]`));
    for (const operation of operations) await openOperation(operation);
    const violations = await axeAtBothSizes(page, "operations open", opened);
    for (const operation of operations) await operation.getByRole("button", { name: "Try it out" }).click();
    await operations[1].getByLabel("Request body").waitFor();
    await operations[0].getByRole("button", { name: "Execute" }).waitFor();
    violations.push(...(await axeAtBothSizes(page, "operations tried out", opened)));
    await screenshot(page, "api-docs-operation-open");
    expect(violations.join("\n"), "axe found serious or critical violations on /api/docs").toBe("");
  }, 120_000);

  test("deep links: the address names the operation opened last, and such an address opens it", async () => {
    const page = await openDocs();
    const [, post] = firstGetAndPost(page);
    await openOperation(post);
    const deepLink = `#/${await operationPath(post)}`;
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(deepLink);

    await page.goto("about:blank");
    await page.goto(`/api/docs${deepLink}`);
    await post.locator(".responses-table").first().waitFor();
    expect(await page.locator(".opblock.is-open").count()).toBe(1);
  }, 120_000);

  test("serves the document, the page's four files and nothing else of swagger-ui-dist", async () => {
    const served = await fetch(`${server.url}/api/openapi.json`);
    expect(served.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await served.json()) as { openapi: string }).openapi).toBe("3.1.0");
    expect((await fetch(`${server.url}/api/openapi.json`, { method: "POST" })).status).toBe(405);

    const page = await fetch(`${server.url}/api/docs`);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const files = [...html.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map((match) => match[1]);
    expect(files.map((file) => new URL(file, server.url).pathname).sort()).toEqual([
      "/api/docs/docs.css",
      "/api/docs/docs.js",
      "/api/docs/swagger-ui-bundle.js",
      "/api/docs/swagger-ui.css",
    ]);
    for (const file of files) {
      const answer = await fetch(`${server.url}${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.headers.get("content-type"), file).toMatch(file.includes(".css") ? /^text\/css/ : /^text\/javascript/);
      expect(await answer.text(), file).not.toContain("sourceMappingURL");
    }
    for (const other of ["index.html", "swagger-initializer.js", "package.json", "oauth2-redirect.html", "..%2Fpackage.json"]) {
      const answer = await fetch(`${server.url}/api/docs/${other}`);
      expect(answer.status, other).toBe(404);
      expect(await answer.json(), other).toEqual({ message: "Not found" });
    }
  });

  test("the app's pages never load Swagger UI, and no bundle of the app contains it", async () => {
    const { page, requested } = await open();
    await page.goto("/");
    await page.getByRole("heading", { name: "How Staking Works" }).waitFor();
    await page.waitForLoadState("load");
    expect(requested.some((url) => new URL(url).pathname.startsWith("/assets/"))).toBe(true);
    expect(requested.filter((url) => /swagger|\/api\/docs|openapi/i.test(url))).toEqual([]);

    const assets = path.join(buildDir, "client", "assets");
    const scripts = fs.readdirSync(assets).filter((name) => name.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((name) => fs.readFileSync(path.join(assets, name), "utf8").includes("SwaggerUIBundle"))).toEqual([]);
  });
});

/** The deep link of an operation's block: `{tag}/{operationId}`, from its element id. */
async function operationPath(operation: Locator): Promise<string> {
  const [, tag, operationId] = /^operations-(.+)-([^-]+)$/.exec((await operation.getAttribute("id")) ?? "") ?? [];
  return `${tag.replace(/_/g, " ")}/${operationId}`;
}

/** Swagger UI's element id for an operation: `operations-{first tag, spaces as _}-{operationId}`. */
function operationElementId(tags: string[] | undefined, operationId: string): string {
  return `operations-${(tags?.[0] ?? "default").replace(/\s/g, "_")}-${operationId}`;
}
