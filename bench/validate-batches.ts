/**
 * Validate batches against a slow ord node (issue 20): wonky-ord makes one node call per validated id, so
 * a batch's time grows with its size. On real PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; a throwaway database is created and dropped), 1,883 items with
 * 20 KB contents on the simulated wonky-ord over HTTP, a steady pass (every owner known) with the node
 * answering in 0, 5 and 20 ms per call:
 * - baseline: fixed batches of 500 pairs with the read timeout (5 s), a timed-out batch asked again twice
 *   at the same size, then its ids read in full (the client before issue 20);
 * - batches sized by the server's answers (start 50, doubled while the pace allows a doubled batch within a
 *   quarter of the 10 s validate timeout, halved when slower than half of it or on a timeout): the first
 *   pass after a start, and the next one, which starts at the size the first ended with (as the indexer does).
 * Each line: pass time, validate requests (timeouts), batch sizes answered, full reads, node calls, bytes.
 * Standalone: `node --import tsx bench/validate-batches.ts`.
 */
import { pathToFileURL } from "node:url";
import type { Sql } from "../db/client.server.ts";
import {
  createOrdClient,
  OrdError,
  VALIDATE_BATCH_SIZE,
  type OrdClient,
  type ValidateOutcome,
  type ValidatePair,
} from "../indexer/ord-client.server.ts";
import { demoOtherHolders, startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";
import { syncOnce } from "../indexer/sync.server.ts";
import { indexerConfig, testAddress } from "../indexer/test-support.ts";
import { withBenchDatabase } from "./bench-database.ts";

const ITEMS = 1_883;
const CONTENT_BYTES = 20_000;
const READ_TIMEOUT_MS = 5_000;
const RETRIES = 2;
const NODE_LATENCIES_MS = [0, 5, 20];

async function seedCatalogue(sql: Sql): Promise<Map<string, string>> {
  await sql`
    insert into items (inscription_id, collection, name, number, rank, rarity)
    select md5('validate' || g) || md5('batches' || g) || 'i0', 'spooks', 'Bench Spook #' || g, g, g,
           case when g <= 44 then 'Legendary' when g <= 178 then 'Epic' when g <= 444 then 'Rare' else 'Common' end
    from generate_series(1, ${ITEMS}::int) as g`;
  const items = await sql<{ inscriptionId: string }[]>`select inscription_id from items order by id`;
  const holders = [testAddress("bench-validate-holder"), ...demoOtherHolders()];
  return new Map(items.map((item, i) => [item.inscriptionId, holders[i % holders.length]]));
}

/**
 * The client's policy before issue 20, over its single-request `validate`: slices of 500, each asked with the
 * read timeout and retried at the same size on a timeout or 5xx, then left to full reads.
 */
function fixedBatches(client: OrdClient): OrdClient {
  async function askWithRetries(batch: ValidatePair[], outcome: ValidateOutcome): Promise<Map<string, boolean> | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.validate(batch);
      } catch (error) {
        if (error instanceof OrdError && error.reason === "timeout") outcome.timeouts += 1;
        if (!(error instanceof OrdError) || !error.retryable || attempt >= RETRIES) return null;
      }
    }
  }
  return {
    ...client,
    async validateAll(pairs) {
      const outcome: ValidateOutcome = { confirmed: new Set(), refuted: new Set(), unanswered: new Set(), batchSizes: [], timeouts: 0 };
      const batches: ValidatePair[][] = [];
      for (let start = 0; start < pairs.length; start += VALIDATE_BATCH_SIZE) batches.push(pairs.slice(start, start + VALIDATE_BATCH_SIZE));
      await Promise.all(
        batches.map(async (batch) => {
          const answers = await askWithRetries(batch, outcome);
          if (!answers) return batch.forEach((pair) => outcome.unanswered.add(pair.inscriptionId));
          outcome.batchSizes.push(batch.length);
          for (const [id, valid] of answers) (valid ? outcome.confirmed : outcome.refuted).add(id);
        }),
      );
      return outcome;
    },
  };
}

/** Keeps the last validateAll outcome, to print the batch sizes. */
function recording(client: OrdClient): { client: OrdClient; last: () => ValidateOutcome | undefined } {
  let last: ValidateOutcome | undefined;
  return {
    client: { ...client, validateAll: async (pairs, signal) => (last = await client.validateAll(pairs, signal)) },
    last: () => last,
  };
}

function sizes(outcome: ValidateOutcome | undefined): string {
  if (!outcome || outcome.batchSizes.length === 0) return "none answered";
  const list = outcome.batchSizes;
  const shown = list.length <= 8 ? list.join(", ") : `${list.slice(0, 6).join(", ")}, … (${list.length} in all)`;
  return `${shown}; largest ${Math.max(...list)}`;
}

async function steadyPass(sql: Sql, chain: SimulatedChain, client: OrdClient, label: string): Promise<number> {
  const { client: watched, last } = recording(client);
  chain.resetStats();
  const report = await syncOnce({
    sql,
    ordUrl: chain.url,
    config: indexerConfig({ timeoutMs: READ_TIMEOUT_MS, retries: RETRIES }),
    source: "cli",
    wait: true,
    client: watched,
  });
  if (report.skipped || report.state !== "ok") throw new Error(`the pass did not apply: ${JSON.stringify(report)}`);
  const stats = chain.stats();
  const outcome = last();
  console.log(
    `  ${label.padEnd(44)} ${String(report.durationMs).padStart(7)} ms   validate ${String(stats.byRoute.validate ?? 0).padStart(3)} (timeouts ${outcome?.timeouts ?? 0})   full reads ${String(report.fullReads).padStart(5)}   node calls ${String(stats.nodeCalls).padStart(5)}   ${(stats.bytesSent / 1024 / 1024).toFixed(1).padStart(5)} MB`,
  );
  console.log(`  ${"".padEnd(44)} batches answered: ${sizes(outcome)}`);
  return report.durationMs;
}

async function benchValidate(sql: Sql): Promise<void> {
  const owners = await seedCatalogue(sql);
  const chain = await startSimulatedChain({ owners, contentBytes: CONTENT_BYTES });
  const options = { baseUrl: chain.url, concurrency: 16, timeoutMs: READ_TIMEOUT_MS, retries: RETRIES };
  const first = createOrdClient({ ...options, timeoutMs: 60_000 });
  try {
    await syncOnce({ sql, ordUrl: chain.url, config: indexerConfig(), source: "cli", wait: true, client: first });
    console.log(
      `steady pass over ${ITEMS.toLocaleString("en-US")} items (${CONTENT_BYTES.toLocaleString("en-US")}-byte contents), simulated wonky-ord whose node answers each call in:`,
    );
    for (const latency of NODE_LATENCIES_MS) {
      chain.setNodeLatency(latency);
      console.log(`${latency} ms per node call (a batch of 500: ${((latency * 500) / 1000).toFixed(1)} s):`);
      const baselineClient = createOrdClient({ ...options, validateTimeoutMs: READ_TIMEOUT_MS });
      const baseline = await steadyPass(sql, chain, fixedBatches(baselineClient), "baseline: fixed 500, read timeout, retried");
      baselineClient.close();
      const adaptiveClient = createOrdClient(options);
      const fresh = await steadyPass(sql, chain, adaptiveClient, "sized by the answers: first pass (from 50)");
      const kept = await steadyPass(sql, chain, adaptiveClient, "sized by the answers: next pass (size kept)");
      adaptiveClient.close();
      console.log(`  ${"".padEnd(44)} = ${(baseline / fresh).toFixed(1)}× and ${(baseline / kept).toFixed(1)}× the baseline's speed`);
    }
  } finally {
    first.close();
    await chain.close();
  }
}

export async function run(): Promise<void> {
  await withBenchDatabase("validate", 10, benchValidate);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error: Error) => {
    console.error(`bench/validate-batches: ${error.message}`);
    process.exit(1);
  });
}
