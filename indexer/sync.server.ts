/**
 * One ownership sync pass against a wonky-ord server, safe against its rollbacks (docs/indexer.md):
 *
 * 1. Opening check: `/status` (a server stopped for good is `stalled`) and `/block-count` (below the
 *    highest count ever seen means the server answers from an older state: `rewinding`).
 * 2. Read: one `/inscriptions/validate` call per 500 known (item, owner) pairs; full reads only for pairs
 *    answered false, items never seen, address-less items, and ids a failed batch left unanswered.
 * 3. Closing check: the block count must not have fallen and the server must still be indexing.
 * 4. Stale-answer check: an item read back at a satpoint it already left (within a reorg's reach) means
 *    the answers came from an older state: the whole pass is `rewinding`.
 * 5. Only then the moves are applied (each in its own transaction), stakes held by anyone but the P2PKH
 *    owner end, and the highest block count is raised.
 * A held-back pass changes nothing; it is recorded with its reason, logged, and shown in health/CLI.
 */
import { now } from "../app/domain/clock.ts";
import type { Config } from "../app/utils/env.server.ts";
import { silentLogger, type Logger } from "../app/utils/logger.server.ts";
import { observeSyncPass } from "../app/utils/metrics.server.ts";
import type { Sql } from "../db/client.server.ts";
import {
  applyMove,
  endForeignStakes,
  highestBlockCount,
  knownOwners,
  recordFirstOwners,
  recordSyncRun,
  satpointsLeft,
  type FirstSighting,
  type KnownOwner,
  type Move,
  type SyncRun,
  type SyncSource,
  type SyncState,
} from "../db/queries/ownership.server.ts";
import { createOrdClient, OrdError, type OrdClient, type OrdInscription } from "./ord-client.server.ts";
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
  /** Cuts the pass short (shutdown); nothing read is applied and the pass is recorded. */
  signal?: AbortSignal;
  /** Tests and benchmarks may bring their own client (e.g. shorter backoff). */
  client?: OrdClient;
};

export type SyncReport =
  | (SyncRun & { skipped: false; firstSeen: number; satpointMoves: number; fullReads: number; durationMs: number })
  | { skipped: true; source: SyncSource };

/**
 * wonky-ord restores a savepoint at most 49 blocks back; an item seen leaving a satpoint this many blocks
 * before the highest count seen cannot be shown there again by a rollback, only by a real reorg.
 */
export const REORG_REACH_BLOCKS = 50;

/** First sightings (items never read, e.g. a first sync of 1,883) are recorded this many per statement. */
const FIRST_SIGHTINGS_PER_BATCH = 500;

type HeldBack = { state: Exclude<SyncState, "ok">; reason: string };

type Tally = {
  checked: number;
  ownersChanged: number;
  firstSeen: number;
  satpointMoves: number;
  stakesEnded: number;
  errors: number;
  fullReads: number;
};

/** What a pass read: where items are now, for those that differ from what the database holds. */
type Reading = { firstSightings: FirstSighting[]; moves: Move[] };

/** Servers already reported as lacking `/inscriptions/validate` (logged once per process). */
const warnedNoValidate = new Set<string>();

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
  const { concurrency, timeoutMs, retries, chain, maxBodyBytes } = options.config.indexer;
  return createOrdClient({ baseUrl: options.ordUrl, chain, concurrency, timeoutMs, retries, maxBodyBytes });
}

const newTally = (): Tally => ({ checked: 0, ownersChanged: 0, firstSeen: 0, satpointMoves: 0, stakesEnded: 0, errors: 0, fullReads: 0 });

async function syncPass(options: SyncOptions, client: OrdClient): Promise<SyncReport> {
  const startedAt = now();
  const started = performance.now();
  const tally = newTally();
  const finish = async (count: number | null, heldBack: HeldBack | null) => {
    const run = await recordPass(options, { startedAt, count, heldBack, tally });
    return {
      ...run,
      skipped: false as const,
      firstSeen: tally.firstSeen,
      satpointMoves: tally.satpointMoves,
      fullReads: tally.fullReads,
      durationMs: Math.round(performance.now() - started),
    };
  };

  const highest = await highestBlockCount(options.sql);
  const opening = await checkServer(client, highest, options.signal);
  if ("held" in opening) return finish(opening.count, opening.held);

  const reading = await readPositions(options, client, tally);
  if (options.signal?.aborted)
    return finish(opening.count, { state: "unavailable", reason: "interrupted before the end of the pass (shutdown)" });

  const closing = await checkServer(client, opening.count, options.signal);
  if ("held" in closing) {
    const fell = closing.held.state === "rewinding";
    const reason = fell ? `block count fell from ${opening.count} to ${closing.count} during the pass` : closing.held.reason;
    return finish(opening.count, { ...closing.held, reason });
  }

  const stale = await staleAnswer(options.sql, reading.moves, Math.max(highest ?? 0, closing.count));
  if (stale) return finish(closing.count, { state: "rewinding", reason: stale });

  await applyReading(options, reading, closing.count - 1, tally);
  tally.stakesEnded += await endForeignStakes(options.sql, now());
  return finish(closing.count, null);
}

type ServerCheck = { count: number } | { count: number | null; held: HeldBack };

/** The server is indexing and its block count is not below `floor` (the highest seen, or the pass's opening count). */
async function checkServer(client: OrdClient, floor: number | null, signal?: AbortSignal): Promise<ServerCheck> {
  try {
    if ((await client.status(signal)) === "unrecoverable") {
      return {
        count: await client.blockCount(signal).catch(() => null),
        held: { state: "stalled", reason: "the ord server reports an unrecoverable reorg and has stopped indexing" },
      };
    }
    const count = await client.blockCount(signal);
    if (floor !== null && count < floor) {
      return { count, held: { state: "rewinding", reason: `block count ${count} is below the highest seen, ${floor}` } };
    }
    return { count };
  } catch (error) {
    if (!(error instanceof OrdError)) throw error;
    return { count: null, held: { state: "unavailable", reason: `ord server unavailable (${error.reason}: ${error.message})` } };
  }
}

/** Asks validate for every known (item, owner) pair, then reads in full only what it could not confirm. */
async function readPositions(options: SyncOptions, client: OrdClient, tally: Tally): Promise<Reading> {
  const known = await knownOwners(options.sql);
  const report = () =>
    options.onProgress?.({ done: tally.checked, total: known.length, ownersChanged: tally.ownersChanged, errors: tally.errors });
  const toRead = await unconfirmed(options, client, known);
  tally.checked = known.length - toRead.length;
  if (tally.checked > 0) report();

  const reading: Reading = { firstSightings: [], moves: [] };
  const at = now();
  for await (const { item, result } of client.inscriptions(toRead, options.signal)) {
    if (options.signal?.aborted) break;
    tally.checked += 1;
    tally.fullReads += 1;
    if (result.ok) noteReading(reading, item, result.inscription, at);
    else noteUnreadable(options, tally, item, result.error);
    report();
  }
  return reading;
}

/** The known items whose owner validate could not confirm (all of them when the server has no validate route). */
async function unconfirmed(options: SyncOptions, client: OrdClient, known: KnownOwner[]): Promise<KnownOwner[]> {
  const pairs = known.flatMap((item) =>
    item.seen && item.ownerAddress !== null ? [{ inscriptionId: item.inscriptionId, address: item.ownerAddress }] : [],
  );
  if (pairs.length === 0) return known;
  try {
    const { confirmed } = await client.validateAll(pairs, options.signal);
    return known.filter((item) => !confirmed.has(item.inscriptionId));
  } catch (error) {
    if (!(error instanceof OrdError)) throw error;
    if (error.reason === "unsupported" && !warnedNoValidate.has(options.ordUrl)) {
      warnedNoValidate.add(options.ordUrl);
      (options.logger ?? silentLogger).warn({
        msg: "the ord server has no /inscriptions/validate: every pass reads every item in full",
        ord: options.ordUrl,
      });
    }
    return known;
  }
}

function noteReading(reading: Reading, item: KnownOwner, position: OrdInscription, at: Date): void {
  const { address, kind, satpoint } = position;
  if (!item.seen) {
    reading.firstSightings.push({ itemId: item.itemId, address, kind, satpoint });
    return;
  }
  if (address === item.ownerAddress && kind === item.ownerKind && satpoint === item.satpoint) return;
  reading.moves.push({ itemId: item.itemId, address, kind, satpoint, blockHeight: null, at });
}

function noteUnreadable(options: SyncOptions, tally: Tally, item: KnownOwner, error: OrdError): void {
  tally.errors += 1;
  (options.logger ?? silentLogger).warn({
    msg: "owner unreadable, left as it was",
    inscriptionId: item.inscriptionId,
    reason: error.reason,
    error: error.message,
  });
}

/** Why the answers must be from an older state, or null: an item is back at a satpoint it left within a reorg's reach. */
async function staleAnswer(sql: Sql, moves: readonly Move[], highestCount: number): Promise<string | null> {
  const left = await satpointsLeft(sql, moves);
  const recent = left.find((row) => row.leftAtHeight !== null && highestCount - 1 - row.leftAtHeight < REORG_REACH_BLOCKS);
  if (!recent) return null;
  return `stale answer: item ${recent.itemId} is back at satpoint ${recent.satpoint}, which it left at height ${recent.leftAtHeight}`;
}

async function applyReading(options: SyncOptions, reading: Reading, height: number, tally: Tally): Promise<void> {
  const logger = options.logger ?? silentLogger;
  const at = now();
  for (let start = 0; start < reading.firstSightings.length; start += FIRST_SIGHTINGS_PER_BATCH) {
    const batch = reading.firstSightings.slice(start, start + FIRST_SIGHTINGS_PER_BATCH);
    try {
      const recorded = await recordFirstOwners(options.sql, batch, height, at);
      tally.ownersChanged += recorded;
      tally.firstSeen += recorded;
    } catch (error) {
      tally.errors += batch.length;
      logger.error({ msg: "first owners not recorded", items: batch.length, err: error });
    }
  }
  for (const move of reading.moves) await applyOneMove(options, { ...move, blockHeight: height, at }, tally);
}

async function applyOneMove(options: SyncOptions, move: Move, tally: Tally): Promise<void> {
  const logger = options.logger ?? silentLogger;
  try {
    const applied = await applyMove(options.sql, move);
    if (!applied.moved) return;
    tally.stakesEnded += applied.stakesEnded;
    if (!applied.ownerChanged) return void (tally.satpointMoves += 1);
    tally.ownersChanged += 1;
    logger.debug({
      msg: "owner changed",
      itemId: move.itemId,
      from: applied.from,
      to: { address: move.address, kind: move.kind },
      stakesEnded: applied.stakesEnded,
    });
  } catch (error) {
    tally.errors += 1;
    logger.error({ msg: "move not recorded", itemId: move.itemId, err: error });
  }
}

async function recordPass(
  options: SyncOptions,
  pass: { startedAt: Date; count: number | null; heldBack: HeldBack | null; tally: Tally },
): Promise<SyncRun> {
  const { tally, heldBack, count } = pass;
  const applied = heldBack === null;
  const run: SyncRun = {
    source: options.source,
    startedAt: pass.startedAt,
    finishedAt: now(),
    state: heldBack?.state ?? "ok",
    reason: heldBack?.reason ?? null,
    blockHeight: count === null ? null : count - 1,
    itemsChecked: tally.checked,
    ownersChanged: applied ? tally.ownersChanged : 0,
    stakesEnded: applied ? tally.stakesEnded : 0,
    errors: tally.errors + (heldBack?.state === "unavailable" ? 1 : 0),
  };
  await recordSyncRun(options.sql, run, applied ? count : null);
  observeSyncPass({ ...run, seconds: (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 });
  const logger = options.logger ?? silentLogger;
  if (applied)
    logger.info({ msg: "sync", ...run, firstSeen: tally.firstSeen, satpointMoves: tally.satpointMoves, fullReads: tally.fullReads });
  else logger.warn({ msg: `sync held back (${run.state}): nothing changed`, ...run });
  return run;
}
