/**
 * Points history figures (issue 18), for bench/api.ts (measured in the same run as /api/rewards) and on their
 * own (`npm run bench -- history`, issue 23: on PostgreSQL and on the embedded PGlite served on its socket):
 * - wallets with long histories: 200 wallets with 2,000 ledger rows each and one with 100,000 (hourly
 *   accruals, explained as the indexer writes them, and a spend every 50th row);
 * - the CSV and JSON downloads of the 100,000-row history: time, bytes, and the process's peak memory
 *   while it streams, beside the same rows read into one array (what a download without paging holds);
 * - an ordinary request (GET /api/giveaways) alone, then while a client opens the CSV download and reads
 *   nothing, and while one reads 1 KB/s (`npm run bench -- history` only).
 * Standalone: `node --import tsx bench/history.ts`.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { PGlite } from "@electric-sql/pglite";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { ADDRESS_VERSIONS } from "../app/domain/address.ts";
import { historyEntry } from "../app/domain/points-history.ts";
import { createSql, type Sql } from "../db/client.server.ts";
import { migrate } from "../db/migrate.server.ts";
import { serveOverSocket } from "../db/pglite-socket.server.ts";
import { historyRows } from "../db/queries/points-history.server.ts";
import { startTestServer } from "../tests/support/app-server.ts";
import { slowDownload } from "../tests/support/raw-http.ts";
import { withBenchDatabase } from "./bench-database.ts";

export const LONG_HISTORY = 100_000;
export const HISTORY_WALLETS = 200;
export const ROWS_PER_HISTORY_WALLET = 2_000;
const HOUR_MS = 3_600_000;

const base58check = createBase58check(sha256);

function randomAddress(): string {
  const payload = new Uint8Array(21);
  payload[0] = ADDRESS_VERSIONS.mainnet;
  payload.set(randomBytes(20), 1);
  return base58check.encode(payload);
}

/** `rows` hourly rows for `address` ending an hour ago: accruals of 6 items at tier 2, a 100-point spend every 50th. */
async function seedWallet(sql: Sql, address: string, rows: number): Promise<void> {
  const first = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - (rows + 1) * HOUR_MS);
  await sql`
    insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
                               giveaway_id, giveaway_title, tickets, reference, description, actor, created_at)
    select ${address},
           case when g % 50 = 0 then 'giveaway_entry' else 'accrual' end,
           case when g % 50 = 0 then -240000 else 72000 end,
           case when g % 50 = 0 then null else ${first}::timestamptz + g * interval '1 hour' end,
           case when g % 50 = 0 then null else 4 end, case when g % 50 = 0 then null else 2 end,
           case when g % 50 = 0 then null else 2 end, case when g % 50 = 0 then null else 12000 end,
           case when g % 50 = 0 then 1 end, case when g % 50 = 0 then 'Haunted Hoodie' end, case when g % 50 = 0 then 1 end,
           case when g % 50 = 0 then 'giveaway:1:entry:' || g end, case when g % 50 = 0 then 'Giveaway #1: 1 ticket(s)' end,
           case when g % 50 = 0 then 'web:' || ${address} else 'system' end,
           ${first}::timestamptz + (g + 1) * interval '1 hour'
    from generate_series(1, ${rows}::int) as g`;
}

export type Histories = { wallets: string[]; long: string };

export async function seedHistories(sql: Sql): Promise<Histories> {
  const wallets = Array.from({ length: HISTORY_WALLETS }, randomAddress);
  for (const address of wallets) await seedWallet(sql, address, ROWS_PER_HISTORY_WALLET);
  const long = randomAddress();
  await seedWallet(sql, long, LONG_HISTORY);
  return { wallets, long };
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** Runs `work` sampling the process's memory every 5 ms; answers its time and the peaks above the start. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; rss: number; heap: number }> {
  global.gc?.();
  const before = process.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const sample = setInterval(() => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss);
    heap = Math.max(heap, now.heapUsed);
  }, 5);
  const started = performance.now();
  try {
    const result = await work();
    const after = process.memoryUsage();
    return {
      result,
      ms: performance.now() - started,
      rss: Math.max(rss, after.rss) - before.rss,
      heap: Math.max(heap, after.heapUsed) - before.heapUsed,
    };
  } finally {
    clearInterval(sample);
  }
}

/** Downloads `path`, counting bytes and lines without keeping them. */
async function download(origin: string, path: string): Promise<{ bytes: number; lines: number }> {
  const response = await fetch(origin + path);
  if (response.status !== 200 || !response.body) throw new Error(`${path}: ${response.status}`);
  let bytes = 0;
  let lines = 0;
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    for (const byte of read.value) if (byte === 10) lines++;
  }
  return { bytes, lines };
}

export async function exportFigures(origin: string, sql: Sql, address: string): Promise<void> {
  console.log(`Downloads of one wallet's ${LONG_HISTORY.toLocaleString("en-US")}-entry history (server and client in this process):`);
  for (const format of ["csv", "json"] as const) {
    // A first, unmeasured download warms the route and the database's cache.
    await download(origin, `/api/points/${address}/history?format=${format}`);
    const run = await measured(() => download(origin, `/api/points/${address}/history?format=${format}`));
    console.log(
      `  ?format=${format}: ${(run.ms / 1000).toFixed(2)} s, ${mb(run.result.bytes)}, ${run.result.lines.toLocaleString("en-US")} lines;` +
        ` peak above start: rss +${mb(run.rss)}, heap +${mb(run.heap)}`,
    );
  }
  const whole = await measured(async () => {
    const rows = await historyRows(sql, { address });
    return JSON.stringify({ entries: rows.map(historyEntry), nextCursor: null }).length;
  });
  console.log(
    `  baseline: the same rows read into one array and stringified: ${(whole.ms / 1000).toFixed(2)} s, ${mb(whole.result)};` +
      ` peak above start: rss +${mb(whole.rss)}, heap +${mb(whole.heap)}`,
  );
}

const STALL_S = 20;

/** GET `path` on a connection of its own (no keep-alive pool shared with the downloads); answers its milliseconds. */
function timedGet(origin: string, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(origin + path, { agent: false }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${path}: ${res.statusCode}`)),
        );
      })
      .on("error", reject);
  });
}

/** Milliseconds of GET `path`, one after another for `seconds` (at least 5 requests), sorted. */
async function requestTimes(origin: string, path: string, seconds: number): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (times.length < 5 || performance.now() < until) times.push(await timedGet(origin, path));
  return times.sort((a, b) => a - b);
}

const timesText = (times: number[]) =>
  `p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (${times.length} requests)`;

/** GET /api/giveaways alone, then beside a download whose client reads nothing, then beside one reading 1 KB/s. */
export async function stallFigures(origin: string, address: string): Promise<void> {
  const path = `/api/points/${address}/history?format=csv`;
  console.log(`GET /api/giveaways, one request after another for ${STALL_S} s each:`);
  console.log(`  alone: ${timesText(await requestTimes(origin, "/api/giveaways", STALL_S))}`);
  for (const [label, bytesPerSecond] of [
    ["beside a CSV download whose client reads nothing", 0],
    ["beside a CSV download whose client reads 1 KB/s", 1024],
  ] as const) {
    const client = slowDownload(origin, path, bytesPerSecond);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      console.log(`  ${label}: ${timesText(await requestTimes(origin, "/api/giveaways", STALL_S))}`);
    } finally {
      client.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The first page of the 100,000-entry history beside GET /api/rewards of the same wallet, one request after
 * another on fresh connections, interleaved (issue 26, item 5: within 2× of it).
 */
export async function firstPageFigures(origin: string, address: string, rounds = 40): Promise<void> {
  const history = `/api/points/${address}/history`;
  const rewards = `/api/rewards/${address}`;
  await timedGet(origin, history);
  await timedGet(origin, rewards);
  const times = { history: [] as number[], rewards: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    times.history.push(await timedGet(origin, history));
    times.rewards.push(await timedGet(origin, rewards));
  }
  const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratio = p50(times.history) / p50(times.rewards);
  console.log(`First page of a ${LONG_HISTORY.toLocaleString("en-US")}-entry history, p50 of ${rounds} each, interleaved:`);
  console.log(`  GET /api/points/{address}/history (first page)   ${p50(times.history).toFixed(1).padStart(8)} ms`);
  console.log(
    `  baseline: GET /api/rewards/{address}              ${p50(times.rewards).toFixed(1).padStart(8)} ms   history = ${ratio.toFixed(2)}× (target ≤ 2×) ${ratio <= 2 ? "OK" : "OVER"}`,
  );
}

async function figuresOn(engine: string, sql: Sql): Promise<void> {
  console.log(`\n--- ${engine}: seeding one history of ${LONG_HISTORY.toLocaleString("en-US")} entries…`);
  const address = randomAddress();
  await seedWallet(sql, address, LONG_HISTORY);
  await sql`analyze points_ledger`;
  const server = await startTestServer({ sql, adminAddress: randomAddress() });
  try {
    await firstPageFigures(server.url, address);
    // BENCH_HISTORY=first-page: that figure alone.
    if (process.env.BENCH_HISTORY === "first-page") return;
    await exportFigures(server.url, sql, address);
    await stallFigures(server.url, address);
  } finally {
    await server.close();
  }
}

/** The embedded database as `npm start` runs it: PGlite served on its loopback socket, one connection for the app. */
async function withEmbeddedDatabase(work: (sql: Sql) => Promise<void>): Promise<void> {
  const db = await PGlite.create();
  const socket = await serveOverSocket(db);
  const sql = createSql(socket.url, { max: 1 });
  try {
    await migrate(sql);
    await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
    await socket.stop();
    await db.close();
  }
}

export async function run(): Promise<void> {
  await withBenchDatabase("history", 10, (sql) => figuresOn("PostgreSQL", sql));
  await withEmbeddedDatabase((sql) => figuresOn("PGlite (embedded)", sql));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/history: ${error.stack ?? error.message}`, error.cause);
    process.exit(1);
  });
}
