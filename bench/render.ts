/**
 * Render benchmark of `/` (the staking page) on the production build:
 * - server render time: p50 / p99 / mean over N sequential requests, in-process (React Router's handler,
 *   no HTTP) and over HTTP through the real server (express + compression), after a warm-up;
 * - JS shipped for `/`: every script the HTML references (modulepreload links, module scripts and the
 *   inline entry's imports), raw and gzip-compressed with node:zlib, plus the CSS.
 * `/` has no loader (the wallet's data is fetched by the browser), so no database query runs; the context
 * still gets a database client, which never connects.
 *
 *   node --import tsx bench/render.ts            (N=500, RENDER_REQUESTS to change)
 */
import { sha256 } from "@noble/hashes/sha2.js";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { createRequestHandler, type AppLoadContext, type ServerBuild } from "react-router";
import { addressOfPrivateKey } from "../app/domain/signature.ts";
import { createSql } from "../db/client.server.ts";
import { ensureAppBuild, startTestServer } from "../tests/support/app-server.ts";
import { loadConfig } from "../app/utils/env.server.ts";
import { silentLogger } from "../app/utils/logger.server.ts";

const REQUESTS = Number(process.env.RENDER_REQUESTS ?? 500);
const WARMUP = 50;
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
// Any valid address: `/` never reads it.
const ADMIN_ADDRESS = addressOfPrivateKey(sha256(new TextEncoder().encode("spooks-bench:render-admin")));

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean, max: sorted.at(-1)! };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

async function time(samples: number[], work: () => Promise<void>) {
  const start = performance.now();
  await work();
  samples.push(performance.now() - start);
}

/** Script assets referenced by the HTML of `/`: modulepreload links, script src and inline import()s. */
export function scriptAssets(html: string): string[] {
  const found = new Set<string>();
  for (const match of html.matchAll(/<link[^>]+rel="modulepreload"[^>]*href="([^"]+)"/g)) found.add(match[1]);
  for (const match of html.matchAll(/<script[^>]+src="([^"]+)"/g)) found.add(match[1]);
  for (const match of html.matchAll(/import\s*\(?\s*["'](\/assets\/[^"']+\.js)["']/g)) found.add(match[1]);
  for (const match of html.matchAll(/import\s+[^"']*["'](\/assets\/[^"']+\.js)["']/g)) found.add(match[1]);
  return [...found].filter((href) => href.endsWith(".js"));
}

function styleAssets(html: string): string[] {
  return [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]*href="([^"]+)"/g)].map((match) => match[1]);
}

function weigh(clientDir: string, hrefs: string[]) {
  let raw = 0;
  let gzip = 0;
  const each: { href: string; raw: number; gzip: number }[] = [];
  for (const href of hrefs) {
    const bytes = fs.readFileSync(path.join(clientDir, href.replace(/^\//, "")));
    const compressed = gzipSync(bytes).length;
    each.push({ href, raw: bytes.length, gzip: compressed });
    raw += bytes.length;
    gzip += compressed;
  }
  return { files: hrefs.length, raw, gzip, each: each.sort((a, b) => b.gzip - a.gzip) };
}

export async function run(): Promise<void> {
  const buildDir = await ensureAppBuild();
  const clientDir = path.join(buildDir, "client");
  const build = (await import(pathToFileURL(path.join(buildDir, "server/index.js")).href)) as ServerBuild;
  const sql = createSql(BENCH_DATABASE_URL, { max: 1 });
  const server = await startTestServer({ sql, adminAddress: ADMIN_ADDRESS });
  try {
    // In-process: React Router's request handler alone.
    const config = loadConfig({
      NODE_ENV: "production",
      ORD_URL: "http://127.0.0.1:9",
      ADMIN_ADDRESS,
      DATA_DIR: path.join(buildDir, ".bench-data"),
    });
    // Silent: a render error still fails the run (the status check), without a log line per request.
    const context: AppLoadContext = { sql, config: { ...config, adminAddress: ADMIN_ADDRESS }, demoWallets: [], logger: silentLogger };
    const handler = createRequestHandler(build, "production");
    const renderOnce = async () => {
      const response = await handler(new Request("http://localhost/", { headers: { accept: "text/html" } }), context);
      if (response.status !== 200) throw new Error(`/ answered ${response.status}`);
      await response.text();
    };
    const inProcess: number[] = [];
    for (let i = 0; i < WARMUP; i++) await renderOnce();
    for (let i = 0; i < REQUESTS; i++) await time(inProcess, renderOnce);

    // Over HTTP, as a browser asks (gzip accepted).
    let html = "";
    const fetchOnce = async () => {
      const response = await fetch(`${server.url}/`, { headers: { accept: "text/html", "accept-encoding": "gzip" } });
      if (response.status !== 200) throw new Error(`/ answered ${response.status}`);
      html = await response.text();
    };
    const overHttp: number[] = [];
    for (let i = 0; i < WARMUP; i++) await fetchOnce();
    const started = performance.now();
    for (let i = 0; i < REQUESTS; i++) await time(overHttp, fetchOnce);
    const elapsed = performance.now() - started;

    const scripts = weigh(clientDir, scriptAssets(html));
    const styles = weigh(clientDir, styleAssets(html));
    const htmlGzip = gzipSync(Buffer.from(html)).length;
    const a = summarize(inProcess);
    const b = summarize(overHttp);

    console.log(`render of / (production build, ${REQUESTS} sequential requests after ${WARMUP} warm-up)`);
    console.log(`  in-process handler : p50 ${ms(a.p50)}  p99 ${ms(a.p99)}  mean ${ms(a.mean)}  max ${ms(a.max)}`);
    console.log(
      `  over HTTP          : p50 ${ms(b.p50)}  p99 ${ms(b.p99)}  mean ${ms(b.mean)}  max ${ms(b.max)}  (${Math.round((REQUESTS / elapsed) * 1000)} req/s)`,
    );
    console.log(`shipped for /`);
    console.log(`  JS   : ${scripts.files} files, ${kb(scripts.raw)} raw, ${kb(scripts.gzip)} gzip`);
    for (const file of scripts.each) console.log(`         ${kb(file.gzip).padStart(9)} gzip  ${file.href}`);
    console.log(`  CSS  : ${styles.files} file(s), ${kb(styles.raw)} raw, ${kb(styles.gzip)} gzip`);
    console.log(`  HTML : ${kb(Buffer.byteLength(html))} raw, ${kb(htmlGzip)} gzip`);
  } finally {
    await server.close();
    await sql.end({ timeout: 1 });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
