/**
 * GET /content/{inscriptionId} (app/routes/content.ts) against a real database and the simulated chain (and,
 * for answers the chain never gives, a small stand-in ord server): fetched once, then from disk; catalogue
 * items only; malformed ids; non-images, svg, oversized and failed answers refused with 502, never written to
 * disk, and remembered for a few minutes per ord server and id so they are not fetched again and again;
 * ORD_URL credentials sent as Basic authorization.
 * (nosniff, set on every response by server/security.ts, is checked over HTTP in tests/e2e/images.test.ts.)
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AppContext } from "../context.ts";
import { addressOfPrivateKey, newPrivateKey } from "../domain/signature.ts";
import { loadConfig } from "../utils/env.server.ts";
import { createLogger, withRequestLogger } from "../utils/logger.server.ts";
import { contentCacheDir, FAILURE_MEMORY_MS, forgetContentFailures } from "../utils/content-cache.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { IMMUTABLE_CACHE_CONTROL, loader } from "./content.ts";

const catalogue = demoCatalogue();
/** Imported into the database. */
const items = catalogue.slice(0, 8);
/** On the chain, but not in the catalogue. */
const outsider = catalogue[500];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: SimulatedChain;
let bigChain: SimulatedChain;
let dataDir: string;
let context: AppContext;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await importCatalogue(db.sql, items);
  const owner = addressOfPrivateKey(newPrivateKey());
  const owners = new Map([...items, outsider].map((item) => [item.inscriptionId, owner]));
  chain = await startSimulatedChain({ owners });
  // Items padded to 20 KB each, as real pictures are.
  bigChain = await startSimulatedChain({ owners, contentBytes: 20_000 });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-content-"));
  const config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    ORD_URL: chain.url,
    CONTENT_MAX_BYTES: "16384",
    CONTENT_TIMEOUT_MS: "3000",
  });
  context = { sql: db.sql, config: { ...config, adminAddress: owner }, demoWallets: [] };
});

afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
  await chain?.close();
  await bigChain?.close();
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.useRealTimers();
  forgetContentFailures();
  context.config.ordUrl = chain.url;
  chain.setLatency(0);
});

async function get(inscriptionId: string): Promise<Response> {
  const request = new Request(`http://spooks.test/content/${inscriptionId}`);
  return loader({ request, params: { inscriptionId }, context, unstable_pattern: "/content/:inscriptionId" } as unknown as Parameters<
    typeof loader
  >[0]);
}

const cacheFile = (inscriptionId: string) => path.join(contentCacheDir(dataDir), inscriptionId);
const contentRequests = (on: SimulatedChain = chain) => on.stats().byRoute.content ?? 0;
const cacheListing = () => (fs.existsSync(contentCacheDir(dataDir)) ? fs.readdirSync(contentCacheDir(dataDir)) : []);

/** A stand-in ord server whose /content answers come from `answer`; counts its requests. */
async function fakeOrd(
  answer: (res: http.ServerResponse, req: http.IncomingMessage) => void,
): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    answer(res, req);
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

async function expect502(inscriptionId: string): Promise<string> {
  const response = await get(inscriptionId);
  expect(response.status).toBe(502);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as { message: string };
  expect(typeof body.message).toBe("string");
  expect(cacheListing().filter((name) => name.startsWith(inscriptionId))).toEqual([]);
  return body.message;
}

describe("GET /content/{inscriptionId}", () => {
  it("fetches a catalogue item's picture once (concurrent first requests share it), then serves it from disk", async () => {
    const [item] = items;
    const expected = chain.contentOf(item.inscriptionId)!;
    expect(expected.contentType).toBe("image/png");
    chain.resetStats();
    chain.setLatency(150); // the first requests overlap while the chain answers

    const answers = await Promise.all(Array.from({ length: 5 }, () => get(item.inscriptionId)));
    for (const response of answers) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(response.headers.get("cache-control")).toBe(IMMUTABLE_CACHE_CONTROL);
      expect(IMMUTABLE_CACHE_CONTROL).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("content-length")).toBe(String(expected.body.length));
      expect(Buffer.from(await response.arrayBuffer()).equals(expected.body)).toBe(true);
    }
    expect(contentRequests()).toBe(1);
    expect(fs.readFileSync(cacheFile(item.inscriptionId)).equals(expected.body)).toBe(true);
    expect(cacheListing().filter((name) => name.endsWith(".tmp"))).toEqual([]);

    // Again: nothing more asked of the chain.
    expect((await get(item.inscriptionId)).status).toBe(200);
    expect(contentRequests()).toBe(1);

    // The answer is the file on disk: replace it (with another valid picture) and that is what is served.
    const other = chain.contentOf(items[1].inscriptionId)!.body;
    fs.writeFileSync(cacheFile(item.inscriptionId), other);
    const fromDisk = await get(item.inscriptionId);
    expect(Buffer.from(await fromDisk.arrayBuffer()).equals(other)).toBe(true);
    expect(contentRequests()).toBe(1);

    // Even with the ord server gone, a cached picture is still served.
    context.config.ordUrl = "http://127.0.0.1:9";
    expect((await get(item.inscriptionId)).status).toBe(200);
  });

  it("a cached file that is not an image (damaged) is fetched again", async () => {
    const item = items[2];
    expect((await get(item.inscriptionId)).status).toBe(200);
    fs.writeFileSync(cacheFile(item.inscriptionId), "not a picture");
    chain.resetStats();
    const response = await get(item.inscriptionId);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(chain.contentOf(item.inscriptionId)!.body)).toBe(true);
    expect(contentRequests()).toBe(1);
  });

  it("answers only for catalogue items: 404 with a message otherwise, without asking the chain", async () => {
    expect(chain.contentOf(outsider.inscriptionId)).toBeDefined(); // the chain has it
    chain.resetStats();
    const response = await get(outsider.inscriptionId);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "Not a catalogue item" });
    expect(contentRequests()).toBe(0);
    expect(fs.existsSync(cacheFile(outsider.inscriptionId))).toBe(false);
  });

  it.each([
    ["not an id", "spooky"],
    ["upper-case hex", `${items[0].inscriptionId.toUpperCase()}`],
    ["no index", items[0].inscriptionId.split("i")[0]],
    ["a path", `..%2F..%2Fetc%2Fpasswd`],
    ["a path with an id", `${items[0].inscriptionId}%2F..`],
  ])("400 with a message for a malformed id (%s)", async (_what, id) => {
    chain.resetStats();
    const response = await get(id);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: "Malformed inscription id" });
    expect(contentRequests()).toBe(0);
  });

  it("refuses content that is not a PNG, JPEG, GIF or WebP image (502), and does not cache it", async () => {
    const item = items[3];
    const html = await fakeOrd((res) => res.writeHead(200, { "content-type": "image/png" }).end("<html><script>alert(1)</script></html>"));
    context.config.ordUrl = html.url;
    expect(await expect502(item.inscriptionId)).toBe("The inscription's content is not a PNG, JPEG, GIF or WebP image");
    expect(await expect502(item.inscriptionId)).toMatch(/not a PNG/);
    expect(html.requests()).toBe(1); // the failure is remembered: not fetched again

    const svg = await fakeOrd((res) =>
      res
        .writeHead(200, { "content-type": "image/svg+xml" })
        .end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    );
    context.config.ordUrl = svg.url;
    expect(await expect502(item.inscriptionId)).toMatch(/not a PNG/);

    // The same item from the real chain afterwards is fine.
    context.config.ordUrl = chain.url;
    expect((await get(item.inscriptionId)).status).toBe(200);
  });

  it("refuses content larger than CONTENT_MAX_BYTES (502), whether announced or streamed, and does not cache it", async () => {
    const item = items[4];
    expect(bigChain.contentOf(item.inscriptionId)!.body.length).toBeGreaterThan(16384);
    bigChain.resetStats();
    context.config.ordUrl = bigChain.url;
    expect(await expect502(item.inscriptionId)).toBe("The inscription's content is larger than 16 KB");
    expect(contentRequests(bigChain)).toBe(1);

    // No Content-Length: cut off while reading.
    const png = chain.contentOf(item.inscriptionId)!.body;
    const streamed = await fakeOrd((res) => {
      res.writeHead(200, { "content-type": "image/png", "transfer-encoding": "chunked" });
      res.write(png);
      res.end(Buffer.alloc(20_000));
    });
    context.config.ordUrl = streamed.url;
    expect(await expect502(item.inscriptionId)).toMatch(/larger than/);

    // At the limit is fine.
    const exact = await fakeOrd((res) =>
      res.writeHead(200, { "content-type": "image/png" }).end(Buffer.concat([png, Buffer.alloc(16384 - png.length)])),
    );
    context.config.ordUrl = exact.url;
    const response = await get(item.inscriptionId);
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(16384);
  });

  it("answers 502 (never 500) when the ord server fails: an error status, no answer, too slow, no ord server", async () => {
    const item = items[5];
    const failing = await fakeOrd((res) => res.writeHead(500, { "content-type": "text/plain" }).end("boom"));
    context.config.ordUrl = failing.url;
    expect(await expect502(item.inscriptionId)).toBe("The ord server answered 500 for this inscription's content");

    context.config.ordUrl = "http://127.0.0.1:9";
    expect(await expect502(item.inscriptionId)).toBe("The ord server did not answer");

    const slow = await fakeOrd(() => {}); // never answers; CONTENT_TIMEOUT_MS is 3000
    context.config.ordUrl = slow.url;
    expect(await expect502(item.inscriptionId)).toBe("The ord server did not answer");

    const cut = await fakeOrd((res) => {
      res.writeHead(200, { "content-type": "image/png", "content-length": "5000" });
      res.write(Buffer.alloc(100));
      setTimeout(() => res.destroy(), 20);
    });
    context.config.ordUrl = cut.url;
    expect(await expect502(item.inscriptionId)).toBe("The ord server's answer was cut off");

    context.config.ordUrl = undefined;
    expect(await expect502(item.inscriptionId)).toBe("No ord server is configured");
  });
});

describe("failures remembered per ord server and id", () => {
  it("a 404, a non-image or a 5xx is fetched once, answered 502 from memory after, and fetched again once the memory ends", async () => {
    const [first, second] = [items[6], items[7]];
    const missing = await fakeOrd((res) => res.writeHead(404, { "content-type": "text/plain" }).end("not found"));
    context.config.ordUrl = missing.url;
    vi.useFakeTimers({ toFake: ["Date"] });
    for (let i = 0; i < 5; i++)
      expect(await expect502(first.inscriptionId)).toBe("The ord server answered 404 for this inscription's content");
    expect(missing.requests()).toBe(1);
    expect(await expect502(second.inscriptionId)).toMatch(/404/); // per id
    expect(missing.requests()).toBe(2);
    vi.setSystemTime(Date.now() + FAILURE_MEMORY_MS.lasting - 1000);
    await expect502(first.inscriptionId);
    expect(missing.requests()).toBe(2);
    vi.setSystemTime(Date.now() + 2000);
    await expect502(first.inscriptionId);
    expect(missing.requests()).toBe(3);

    // A server in trouble is asked again sooner.
    const failing = await fakeOrd((res) => res.writeHead(503).end());
    context.config.ordUrl = failing.url;
    await expect502(first.inscriptionId);
    await expect502(first.inscriptionId);
    expect(failing.requests()).toBe(1);
    vi.setSystemTime(Date.now() + FAILURE_MEMORY_MS.passing + 1000);
    await expect502(first.inscriptionId);
    expect(failing.requests()).toBe(2);
  });

  it("ORD_URL's credentials go as Basic authorization (fetch refuses them in the URL)", async () => {
    const item = items[1];
    const png = chain.contentOf(item.inscriptionId)!.body;
    let seen: string | undefined;
    const guarded = await fakeOrd((res, req) => {
      seen = req.headers.authorization;
      res.writeHead(200, { "content-type": "image/png" }).end(png);
    });
    context.config.ordUrl = `http://spooks:p%40ss@${new URL(guarded.url).host}`;
    expect((await get(item.inscriptionId)).status).toBe(200);
    expect(seen).toBe(`Basic ${Buffer.from("spooks:p@ss").toString("base64")}`);
  });
});

describe("settings", () => {
  it("when the disk cache can be neither read nor written, still answers the picture, and logs both with the request's id", async () => {
    const cacheDir = contentCacheDir(dataDir);
    const saved = `${cacheDir}.saved`;
    if (fs.existsSync(cacheDir)) fs.renameSync(cacheDir, saved);
    fs.writeFileSync(cacheDir, "a file where the cache folder should be"); // every write into it fails, even as root
    const lines: string[] = [];
    const logger = createLogger("web", { logLevel: "info", logFormat: "json" }, { write: (line: string) => void lines.push(line) });
    try {
      const response = await withRequestLogger(logger.child({ reqId: "req-cache-test" }), () => get(items[5].inscriptionId));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.level === "warn");
      const failure = (msg: string) =>
        expect.objectContaining({ msg, reqId: "req-cache-test", err: expect.objectContaining({ stack: expect.any(String) }) });
      expect(warnings).toEqual([failure("content cache read failed"), failure("content cache write failed")]);
    } finally {
      fs.rmSync(cacheDir, { force: true });
      if (fs.existsSync(saved)) fs.renameSync(saved, cacheDir);
    }
  });

  it("CONTENT_MAX_BYTES defaults to 5 MB, CONTENT_TIMEOUT_MS to 10 s; both are checked", () => {
    expect(loadConfig({}).content).toEqual({ maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000 });
    expect(() => loadConfig({ CONTENT_MAX_BYTES: "10" })).toThrow(/^CONTENT_MAX_BYTES: /);
    expect(() => loadConfig({ CONTENT_TIMEOUT_MS: "soon" })).toThrow(/^CONTENT_TIMEOUT_MS: /);
  });
});
