/**
 * Points history figures for bench/api.ts (issue 18), measured in the same run as /api/rewards:
 * - wallets with long histories: 200 wallets with 2,000 ledger rows each and one with 100,000 (hourly
 *   accruals, explained as the indexer writes them, and a spend every 50th row);
 * - the CSV and JSON downloads of the 100,000-row history: time, bytes, and the process's peak memory
 *   while it streams, beside the same rows read into one array (what a download without a cursor holds).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { randomBytes } from "node:crypto";
import { ADDRESS_VERSIONS } from "../app/domain/address.ts";
import { historyEntry } from "../app/domain/points-history.ts";
import type { Sql } from "../db/client.server.ts";
import { historyRows } from "../db/queries/points-history.server.ts";

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
