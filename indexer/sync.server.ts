/**
 * One ownership sync pass: read the tip height, read every catalogue item's owner from the ord server
 * (bounded concurrency), and apply each change in its own transaction (owner, transfer row, end of the
 * stake). Items seen for the first time have no previous owner and no stake, so they are recorded in
 * batches. An item whose owner the source cannot tell stays as it was; the pass goes on and counts it.
 * Every pass is recorded in sync_runs, and ends with a sweep of stakes held by anyone but the known owner.
 */
import { now } from "../app/domain/clock.ts";
import type { Config } from "../app/utils/env.server.ts";
import { silentLogger, type Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import {
  applyOwnerChange,
  endForeignStakes,
  knownOwners,
  recordFirstOwners,
  recordSyncRun,
  type FirstSighting,
  type KnownOwner,
  type SyncRun,
  type SyncSource,
} from "../db/queries/ownership.server.ts";
import { createOrdClient, OrdError, type OrdClient, type OrdResult } from "./ord-client.server.ts";
import { runExclusive } from "./pass-lock.server.ts";

export type SyncProgress = { done: number; total: number; ownersChanged: number; errors: number };

export type SyncOptions = {
  sql: Sql;
  ordUrl: string;
  config: Pick<Config, "indexer">;
  logger?: Logger;
  source: SyncSource;
  /** Wait for a pass running elsewhere (CLI) instead of skipping (scheduled). */
  wait: boolean;
  onProgress?: (progress: SyncProgress) => void;
  /** Cuts the pass short (shutdown); what was applied stays and the pass is recorded. */
  signal?: AbortSignal;
  /** Tests and benchmarks may bring their own client (e.g. shorter backoff). */
  client?: OrdClient;
};

export type SyncReport = (SyncRun & { skipped: false; firstSeen: number; durationMs: number }) | { skipped: true; source: SyncSource };

/** First sightings (items with no owner yet, e.g. a first sync of 1,883) are recorded this many per statement. */
const FIRST_SIGHTINGS_PER_BATCH = 500;

type Tally = { done: number; ownersChanged: number; firstSeen: number; stakesEnded: number; errors: number };

export async function syncOnce(options: SyncOptions): Promise<SyncReport> {
  const outcome = await runExclusive(options.sql, "sync", options.wait, async () => {
    const client = options.client ?? ownClient(options);
    try {
      return await syncPass(options, client);
    } finally {
      if (!options.client) client.close();
    }
  });
  if (outcome.ran) return outcome.value;
  (options.logger ?? silentLogger).info({ msg: "sync skipped: another pass holds the lock", source: options.source });
  return { skipped: true, source: options.source };
}

function ownClient(options: SyncOptions): OrdClient {
  const { concurrency, timeoutMs, retries } = options.config.indexer;
  return createOrdClient({ baseUrl: options.ordUrl, concurrency, timeoutMs, retries });
}

async function syncPass(options: SyncOptions, client: OrdClient): Promise<SyncReport> {
  const { sql, source, signal } = options;
  const logger = options.logger ?? silentLogger;
  const startedAt = now();
  const started = performance.now();
  const tally: Tally = { done: 0, ownersChanged: 0, firstSeen: 0, stakesEnded: 0, errors: 0 };

  const blockHeight = await readTip(client, logger, source, signal);
  if (blockHeight === null) {
    tally.errors += 1; // the source is down: nothing is read or changed this pass
  } else {
    const items = await knownOwners(sql);
    const firstSightings = createFirstSightings(sql, tally, blockHeight, logger);
    for await (const { item, result } of client.inscriptions(items, signal)) {
      if (signal?.aborted) break;
      if (result.ok && item.ownerAddress === null) await firstSightings.add({ itemId: item.itemId, ...result.inscription });
      else await applyResult(options, logger, tally, item, result, blockHeight);
      tally.done += 1;
      options.onProgress?.({ done: tally.done, total: items.length, ownersChanged: tally.ownersChanged, errors: tally.errors });
    }
    await firstSightings.flush();
    tally.stakesEnded += await endForeignStakes(sql, now());
  }

  const run: SyncRun = {
    source,
    startedAt,
    finishedAt: now(),
    blockHeight,
    itemsChecked: tally.done,
    ownersChanged: tally.ownersChanged,
    stakesEnded: tally.stakesEnded,
    errors: tally.errors,
  };
  await recordSyncRun(sql, run);
  const durationMs = Math.round(performance.now() - started);
  logger.info({ msg: "sync", ...run, firstSeen: tally.firstSeen, durationMs });
  return { ...run, skipped: false, firstSeen: tally.firstSeen, durationMs };
}

function createFirstSightings(sql: Sql, tally: Tally, blockHeight: number, logger: Logger) {
  let pending: FirstSighting[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    try {
      const recorded = await recordFirstOwners(sql, batch, blockHeight, now());
      tally.ownersChanged += recorded;
      tally.firstSeen += recorded;
    } catch (error) {
      tally.errors += batch.length;
      logger.error({ msg: "first owners not recorded", items: batch.length, error: String((error as Error).message) });
    }
  };
  return {
    async add(sighting: FirstSighting) {
      pending.push(sighting);
      if (pending.length >= FIRST_SIGHTINGS_PER_BATCH) await flush();
    },
    flush,
  };
}

async function readTip(client: OrdClient, logger: Logger, source: SyncSource, signal?: AbortSignal): Promise<number | null> {
  try {
    return await client.blockCount(signal);
  } catch (error) {
    if (!(error instanceof OrdError)) throw error;
    logger.warn({ msg: "sync skipped: ord server unavailable", source, reason: error.reason, error: error.message });
    return null;
  }
}

async function applyResult(
  options: SyncOptions,
  logger: Logger,
  tally: Tally,
  item: KnownOwner,
  result: OrdResult,
  blockHeight: number,
): Promise<void> {
  if (!result.ok) {
    tally.errors += 1;
    logger.warn({ msg: "owner unreadable, left as it was", inscriptionId: item.inscriptionId, reason: result.error.reason, error: result.error.message });
    return;
  }
  const { address, satpoint } = result.inscription;
  if (address === item.ownerAddress) return;
  try {
    const applied = await applyOwnerChange(options.sql, { itemId: item.itemId, address, satpoint, blockHeight, at: now() });
    if (!applied.changed) return;
    tally.ownersChanged += 1;
    tally.stakesEnded += applied.stakesEnded;
    if (applied.from === null) tally.firstSeen += 1;
    else logger.debug({ msg: "owner changed", inscriptionId: item.inscriptionId, from: applied.from, to: address, stakesEnded: applied.stakesEnded });
  } catch (error) {
    tally.errors += 1;
    logger.error({ msg: "owner change not recorded", inscriptionId: item.inscriptionId, error: String((error as Error).message) });
  }
}
