/**
 * Item pictures in a real browser (issue 12 item 2, docs/decisions.md "Item images"), in demo mode: each
 * card shows its own generated picture, served by /content/{id} from the simulated chain (fetched once),
 * a skeleton while it loads, and the named placeholder once every source (the local folder, /content/{id},
 * the configured outside host) has failed.
 */
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { contentCacheDir } from "../../app/utils/content-cache.server.ts";
import { injectMyDoge, launchBrowser, newPage, type PageProblems } from "./support/browser.ts";
import { startE2eWorld, type E2eWorld } from "./support/e2e-server.ts";

const OUTSIDE_HOST = "https://cdn.images.test/content/{id}";

let world: E2eWorld;
let browser: Browser;
const opened: { context: BrowserContext; problems: PageProblems }[] = [];

beforeAll(async () => {
  [world, browser] = await Promise.all([
    startE2eWorld({ demo: true, perCollection: 6, holderOwns: 2, env: { ITEM_IMAGE_URLS: OUTSIDE_HOST } }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  for (const { context } of opened) await context.close().catch(() => {});
  await browser?.close();
  await world?.close();
  expect(opened.flatMap(({ problems }) => problems.errors)).toEqual([]);
});

afterEach(() => {
  world.chain.setLatency(0);
  world.server.context.config.ordUrl = world.chain.url;
});

/** A fresh browser (empty cache) with the holder's MyDoge connected, on the staking page. */
async function openStakingPage(): Promise<Page> {
  const { context, page, problems } = await newPage(browser, world.url);
  opened.push({ context, problems });
  await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
  await page.goto("/");
  return page;
}

const card = (page: Page, inscriptionId: string) => page.locator(`[data-testid="item-card"][data-inscription-id="${inscriptionId}"]`);
const clearServerCache = () => fs.rmSync(contentCacheDir(world.server.context.config.dataDir), { recursive: true, force: true });

describe("item pictures", () => {
  test("each card shows its own picture, served by /content/{id} from the simulated chain, fetched once", async () => {
    world.chain.resetStats();
    const page = await openStakingPage();
    expect(world.holderItems).toHaveLength(4);
    for (const item of world.holderItems) {
      const image = card(page, item.inscriptionId).getByRole("img", { name: item.name, exact: true });
      await card(page, item.inscriptionId).locator('[data-testid="item-image"][data-state="loaded"]').waitFor();
      expect(await image.getAttribute("src")).toBe(`/content/${item.inscriptionId}`);
      // Decoded: the chain's 128×128 ghost.
      const size = await image.evaluate((img: HTMLImageElement) => ({
        complete: img.complete,
        width: img.naturalWidth,
        height: img.naturalHeight,
      }));
      expect(size).toEqual({ complete: true, width: 128, height: 128 });
      await expect(card(page, item.inscriptionId).getByTestId("item-image-loading").count()).resolves.toBe(0);
    }
    // Each item its own picture: the bytes the browser got are that item's content on the chain, all different.
    const bodies = await Promise.all(
      world.holderItems.map(async (item) => {
        const answer = await page.request.get(`/content/${item.inscriptionId}`);
        expect(answer.status()).toBe(200);
        expect(answer.headers()["content-type"]).toBe("image/png");
        expect(answer.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
        expect(answer.headers()["x-content-type-options"]).toBe("nosniff");
        const body = await answer.body();
        expect(body.equals(world.chain.contentOf(item.inscriptionId)!.body)).toBe(true);
        return body.toString("base64");
      }),
    );
    expect(new Set(bodies).size).toBe(world.holderItems.length);
    // Once per item, whatever the page and the checks above asked.
    expect(world.chain.stats().byRoute.content).toBe(world.holderItems.length);

    // Another visitor (empty browser cache): served from the server's disk cache, the chain is not asked.
    const again = await openStakingPage();
    await card(again, world.holderItems[0].inscriptionId).locator('[data-testid="item-image"][data-state="loaded"]').waitFor();
    expect(world.chain.stats().byRoute.content).toBe(world.holderItems.length);

    // Only catalogue items: anything else is a JSON 404 (400 for a malformed id).
    const outsider = await page.request.get(`/content/${"0".repeat(64)}i0`);
    expect(outsider.status()).toBe(404);
    expect(await outsider.json()).toEqual({ message: "Not a catalogue item" });
    expect((await page.request.get("/content/nope")).status()).toBe(400);
  });

  test("while a picture loads, the card shows a skeleton, not a blank box", async () => {
    clearServerCache();
    world.chain.setLatency(2500);
    const page = await openStakingPage();
    const [item] = world.holderItems;
    const loading = card(page, item.inscriptionId).getByTestId("item-image-loading");
    await loading.waitFor();
    expect(await card(page, item.inscriptionId).getByTestId("item-image").getAttribute("data-state")).toBe("loading");
    const box = await loading.boundingBox();
    const frame = await card(page, item.inscriptionId).locator(".aspect-square").first().boundingBox();
    // The skeleton covers the whole picture frame, and it is the pulsing skeleton.
    expect(box && frame && box.width >= frame.width - 1 && box.height >= frame.height - 1).toBe(true);
    expect(await loading.getAttribute("class")).toContain("animate-pulse");
    // The image itself is still transparent (nothing half-drawn).
    const image = card(page, item.inscriptionId).getByRole("img", { name: item.name, exact: true });
    expect(await image.evaluate((img: HTMLImageElement) => getComputedStyle(img).opacity)).toBe("0");

    await card(page, item.inscriptionId).locator('[data-testid="item-image"][data-state="loaded"]').waitFor({ timeout: 15_000 });
    expect(await loading.count()).toBe(0);
    expect(await image.getAttribute("src")).toBe(`/content/${item.inscriptionId}`);
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  });

  test("when every source fails, the card shows the named placeholder, after trying each in order", async () => {
    clearServerCache();
    world.server.context.config.ordUrl = "http://127.0.0.1:9"; // /content/{id} answers 502
    const { context, page, problems } = await newPage(browser, world.url);
    opened.push({ context, problems });
    const requested: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "image") requested.push(request.url());
    });
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto("/");

    const [item] = world.holderItems;
    const placeholder = card(page, item.inscriptionId).getByTestId("item-placeholder");
    await placeholder.waitFor();
    await expect(placeholder.getAttribute("aria-label")).resolves.toBe(item.name);
    await placeholder.getByText(item.name, { exact: true }).waitFor();
    expect(await card(page, item.inscriptionId).locator("img").count()).toBe(0);
    expect(await card(page, item.inscriptionId).getByTestId("item-image-loading").count()).toBe(0);

    const mine = requested.filter((url) => url.includes(item.inscriptionId) || url.includes(`/${item.collection}/${item.number}.png`));
    // Issue 33, item 10: this install has no public/collection_images, so no picture is asked for there.
    expect(mine).toEqual([`${world.url}/content/${item.inscriptionId}`, OUTSIDE_HOST.replace("{id}", item.inscriptionId)]);
    // Nothing was cached for the failed fetch.
    expect(fs.existsSync(`${contentCacheDir(world.server.context.config.dataDir)}/${item.inscriptionId}`)).toBe(false);
  });
  test("issue 33 (last: it fills the caches): no picture is first asked of a source this install lacks; a collection with local pictures starts there", async () => {
    const requested: string[] = [];
    const statuses: number[] = [];
    const { context, page, problems } = await newPage(browser, world.url);
    opened.push({ context, problems });
    page.on("response", (response) => {
      if (response.request().resourceType() === "image") {
        requested.push(new URL(response.url()).pathname);
        statuses.push(response.status());
      }
    });
    await injectMyDoge(page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
    await page.goto("/");
    for (const item of world.holderItems)
      await card(page, item.inscriptionId).locator('[data-testid="item-image"][data-state="loaded"]').waitFor();
    // No collection_images folder in this build: every picture comes from /content at once, none answered 404.
    expect(requested.filter((path) => path.startsWith("/collection_images/"))).toEqual([]);
    expect(statuses.filter((status) => status === 404)).toEqual([]);

    // An install with a Spooks folder: Spooks pictures are asked for there first (and shown), Spook Society's are not.
    world.server.context.localImageCollections = ["spooks"];
    try {
      const second = await newPage(browser, world.url);
      opened.push(second);
      const local: string[] = [];
      await second.page.route("**/collection_images/**", (route) => {
        local.push(new URL(route.request().url()).pathname);
        return route.fulfill({
          status: 200,
          contentType: "image/svg+xml",
          body: "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>",
        });
      });
      await injectMyDoge(second.page, { privateKeyHex: world.holder.privateKeyHex, connected: true });
      await second.page.goto("/");
      const spooks = world.holderItems.filter((item) => item.collection === "spooks");
      for (const item of spooks) {
        const image = card(second.page, item.inscriptionId).locator('[data-testid="item-image"][data-state="loaded"] img');
        await image.waitFor();
        expect(await image.getAttribute("src")).toBe(`/collection_images/spooks/${item.number}.png`);
      }
      expect(local.every((path) => path.startsWith("/collection_images/spooks/"))).toBe(true);
    } finally {
      world.server.context.localImageCollections = [];
    }
  });
});
