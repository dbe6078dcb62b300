/**
 * Downloads never stall the site (issue 23, item 1), on the suite's engine (PGlite's single backend, or
 * PostgreSQL): with a 100,000-entry points history, a client that opens the CSV download and reads nothing for
 * 20 s and another that reads 1 KB/s leave every other route, a connection of its own (the CLI's) and an
 * indexer pass answering in their normal time, each measured alone first in the same test; HEAD starts no
 * download (two HEADs leave room for two downloads); and the files are, byte for byte, what one statement
 * reading the whole history gives (what the download was before it read in pages).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvLine, CSV_HEADER, historyEntry } from "../../app/domain/points-history.ts";
import { createSql, type Sql } from "../../db/client.server.ts";
import { logIndexesOf } from "../../db/queries/log.server.ts";
import { historyRows } from "../../db/queries/points-history.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { syncOnce } from "../../indexer/sync.server.ts";
import { indexerConfig } from "../../indexer/test-support.ts";
import { slowDownload } from "../support/raw-http.ts";
import { newWallet, useApi } from "./support.ts";

const ctx = useApi();
const ROWS = 100_000;
// A download that held a connection or a transaction would stall the probes within the first seconds (PGlite
// has one backend); 20 s lets the trickling client take more than 16 KB, past its socket buffers.
const STALL_MS = 20_000;
// One round of the probes a second samples the whole window (a held connection or transaction stalls every round
// after it); back to back, the rounds cost more CPU than the rest of the file.
const ROUND_MS = 1000;
const holder = newWallet();
const csvPath = `/api/points/${holder.address}/history?format=csv`;

let chain: SimulatedChain;
let cli: Sql;

beforeAll(async () => {
  // Fast, and within the ledger's rules: admin rows of both signs, the balance never below zero.
  await ctx.sql`
    insert into points_ledger (address, kind, amount, description, actor, created_at)
    select ${holder.address}, case when g % 3 = 0 then 'admin_clear' else 'admin_add' end,
           case when g % 3 = 0 then -7 * g else 11 * g end, 'bulk ' || g, 'cli', now() - (${ROWS}::int - g) * interval '1 second'
    from generate_series(1, ${ROWS}::int) as g`;
  chain = await startSimulatedChain({ owners: new Map(ctx.catalogue.map((item) => [item.inscriptionId, holder.address])) });
  cli = createSql(ctx.databaseUrl, { max: 1 });
}, 120_000);

afterAll(async () => {
  await cli?.end({ timeout: 5 });
  await chain?.close();
});

async function elapsed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function get(path: string): Promise<void> {
  const response = await fetch(ctx.url + path);
  expect(response.status, path).toBe(200);
  await response.arrayBuffer();
}

/** What must stay quick: two routes of the site, a query on a connection of its own, an indexer pass. */
const probes: Record<string, () => Promise<unknown>> = {
  "GET /api/giveaways": () => get("/api/giveaways"),
  "GET /api/rewards/{address}": () => get(`/api/rewards/${holder.address}`),
  "a query on another connection (the CLI's)": () => cli`select count(*) from items`,
  "an indexer pass": async () => {
    const report = await syncOnce({ sql: ctx.sql, ordUrl: chain.url, config: indexerConfig(), source: "cli", wait: true });
    expect(report.skipped).toBe(false);
  },
};

/**
 * A download of `path`, once the server has let go of the ones closed before it: until their aborts reach it (later
 * on a loaded machine), it answers 429, as it does to any client with too many open.
 */
async function download(path: string): Promise<Response> {
  let response = await fetch(ctx.url + path);
  await expect
    .poll(async () => {
      if (response.status === 429) {
        await response.arrayBuffer();
        response = await fetch(ctx.url + path);
      }
      return response.status;
    })
    .not.toBe(429);
  expect(response.status, `${path}: ${response.status}`).toBe(200);
  return response;
}

/** The slowest of `times` runs of each probe. */
async function slowest(times: number): Promise<Record<string, number>> {
  const worst: Record<string, number> = {};
  for (let run = 0; run < times; run++) {
    for (const [name, probe] of Object.entries(probes)) worst[name] = Math.max(worst[name] ?? 0, await elapsed(probe));
  }
  return worst;
}

describe("downloads", () => {
  it("HEAD answers the headers alone: two HEADs leave room for two downloads", async () => {
    const heads = await Promise.all([1, 2].map(() => fetch(ctx.url + csvPath, { method: "HEAD" })));
    for (const head of heads) {
      expect(head.status).toBe(200);
      expect(head.headers.get("content-disposition")).toBe(`attachment; filename="spooks-points-${holder.address}.csv"`);
    }
    const downloads = await Promise.all([1, 2].map(() => fetch(ctx.url + csvPath)));
    expect(downloads.map((download) => download.status)).toEqual([200, 200]);
    await Promise.all(downloads.map((download) => download.body?.cancel() ?? Promise.resolve()));
  });

  it(
    "a client reading nothing and one reading 1 KB/s leave the site, the CLI and the indexer their normal time",
    async () => {
      await probes["an indexer pass"](); // the first pass records every item; the ones measured are steady passes
      const alone = await slowest(3);

      const started = performance.now();
      const silent = slowDownload(ctx.url, csvPath, 0);
      const trickle = slowDownload(ctx.url, csvPath, 1024);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2000)); // both clients' buffers fill
        const during: Record<string, number> = {};
        let rounds = 0;
        while (performance.now() - started < STALL_MS) {
          const round = performance.now();
          for (const [name, worst] of Object.entries(await slowest(1))) during[name] = Math.max(during[name] ?? 0, worst);
          rounds++;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, ROUND_MS - (performance.now() - round))));
        }
        expect(rounds, "rounds of the probes during the downloads").toBeGreaterThanOrEqual(2);
        for (const [name, ms] of Object.entries(during)) {
          expect(ms, `${name}: ${ms.toFixed(0)} ms during the downloads, ${alone[name].toFixed(0)} ms alone`).toBeLessThanOrEqual(
            Math.max(5 * alone[name], 2000),
          );
        }
        expect(trickle.taken()).toBeGreaterThan(16 * 1024);
      } finally {
        silent.close();
        trickle.close();
      }
    },
    STALL_MS + 120_000,
  );

  it("the CSV and JSON files are byte for byte what one statement reading the whole history gives", async () => {
    const entries = (await historyRows(ctx.sql, { address: holder.address })).map(historyEntry);
    expect(entries).toHaveLength(ROWS);
    const csv = await download(csvPath);
    expect(await csv.text()).toBe(`${CSV_HEADER}\r\n${entries.map(csvLine).join("")}`);
    const json = await download(`/api/points/${holder.address}/history?format=json`);
    // Each entry with where it is in the public log (issue 34).
    const indexes = await logIndexesOf(
      ctx.sql,
      "points_ledger",
      entries.map((entry) => entry.id),
    );
    const logged = entries.map((entry) => ({ ...entry, logIndex: indexes.get(entry.id) ?? null }));
    expect(await json.text()).toBe(`${JSON.stringify({ entries: logged, nextCursor: null })}\n`);
  }, 120_000);
});
