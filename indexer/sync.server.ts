/**
 * One ownership sync pass against a wonky-ord server, safe against its rollbacks (docs/indexer.md):
 *
 * 1. Opening check: `/status` (a server stopped for good is `stalled`) and `/block-count` (below the
 *    highest count ever seen means the server is rewinding: it answers from an older state).
 * 2. Read: `/inscriptions/validate` for every known (item, owner) pair, in batches sized by how fast the
 *    server answers; full reads only for pairs answered false, items never seen, address-less items, and
 *    ids validate could not answer.
 * 3. Closing check: the block count must not have fallen and the server must still be indexing.
 * 4. Second look: every move read is read again, and the count checked once more. A rollback that began
 *    and ended inside the pass showed some items in an older state; their second read differs, and only
 *    they are held back (in doubt) until the next pass. A move read the same twice, across a check that
 *    saw no rollback, is the settled chain's: applied, also when a reorg returned the item to where it was.
 * 5. Only then the moves are applied (each in its own transaction), stakes held by anyone but the P2PKH
 *    owner end, and the highest block count is raised.
 * A held-back pass changes nothing; it is recorded with its reason, logged, and shown in health/CLI.
 */
import { now } from "../app/domain/clock.ts";
import { redactUrl } from "../app/domain/redact.ts";
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
  type FirstSighting,
  type KnownOwner,
  type Move,
  type SyncRun,
  type SyncSource,
  type SyncState,
} from "../db/queries/ownership.server.ts";
import { createOrdClient, OrdError, type OrdClient, type OrdInscription, type ValidateOutcome } from "./ord-client.server.ts";
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

/**
 * A pass's figures besides those recorded in `sync_runs`: `inDoubt` items read differently twice (or not
 * read the second time), held back until the next pass; `returns` items back where a reorg undid their
 * move; `stakesReopened` stakes continued because of it; `validateRequests`/`validateTimeouts` and
 * `validateBatchMax` (the largest batch answered) show how the server's speed sized the batches.
 */
export type PassFigures = {
  firstSeen: number;
  satpointMoves: number;
  fullReads: number;
  inDoubt: number;
  returns: number;
  stakesReopened: number;
  validateRequests: number;
  validateTimeouts: number;
  validateBatchMax: number;
  durationMs: number;
};

export type SyncReport = (SyncRun & PassFigures & { skipped: false }) | { skipped: true; source: SyncSource };

/** First sightings (items never read, e.g. a first sync of 1,883) are recorded this many per statement. */
const FIRST_SIGHTINGS_PER_BATCH = 500;

type HeldBack = { state: Exclude<SyncState, "ok">; reason: string };

type Tally = Omit<PassFigures, "durationMs"> & { checked: number; ownersChanged: number; stakesEnded: number; errors: number };

/** A move read, with the inscription to read again. */
type ReadMove = Move & { inscriptionId: string };

/** What a pass read: where items are now, for those that differ from what the database holds. */
type Reading = { firstSightings: FirstSighting[]; moves: ReadMove[] };

/** Servers already reported as lacking `/inscriptions/validate` (logged once per process). */
const warnedNoValidate = new Set<string>();

/** The validate batch size each server's answers led to, so the next pass starts there rather than small. */
const learnedBatchSize = new Map<string, number>();

export async function syncOnce(options: SyncOptions): Promise<SyncReport> {
  const outcome = await runExclusive(options.sql, "sync", options.wait, async () => {
    const client = options.client ?? ownClient(options);
    try {
      return await syncPass(options, client);
    } finally {
      if (!options.client) {
        learnedBatchSize.set(options.ordUrl, client.validateBatchSize());
        client.close();
      }
    }
  });
  if (outcome.ran) return outcome.value;
  (options.logger ?? silentLogger).info({ msg: "sync skipped: another pass holds the lock", source: options.source });
  return { skipped: true, source: options.source };
}

function ownClient(options: SyncOptions): OrdClient {
  const { concurrency, timeoutMs, validateTimeoutMs, retries, chain, maxBodyBytes } = options.config.indexer;
  return createOrdClient({
    baseUrl: options.ordUrl,
    chain,
    concurrency,
    timeoutMs,
    validateTimeoutMs,
    validateStartBatchSize: learnedBatchSize.get(options.ordUrl),
    retries,
    maxBodyBytes,
  });
}

const figuresOf = (tally: Tally): Omit<PassFigures, "durationMs"> => ({
  firstSeen: tally.firstSeen,
  satpointMoves: tally.satpointMoves,
  fullReads: tally.fullReads,
  inDoubt: tally.inDoubt,
  returns: tally.returns,
  stakesReopened: tally.stakesReopened,
  validateRequests: tally.validateRequests,
  validateTimeouts: tally.validateTimeouts,
  validateBatchMax: tally.validateBatchMax,
});

const newTally = (): Tally => ({
  checked: 0,
  ownersChanged: 0,
  firstSeen: 0,
  satpointMoves: 0,
  stakesEnded: 0,
  errors: 0,
  fullReads: 0,
  inDoubt: 0,
  returns: 0,
  stakesReopened: 0,
  validateRequests: 0,
  validateTimeouts: 0,
  validateBatchMax: 0,
});

async function syncPass(options: SyncOptions, client: OrdClient): Promise<SyncReport> {
  const startedAt = now();
  const started = performance.now();
  const tally = newTally();
  const finish = async (count: number | null, heldBack: HeldBack | null): Promise<SyncReport> => {
    const run = await recordPass(options, { startedAt, count, heldBack, tally });
    return { ...run, ...figuresOf(tally), skipped: false, durationMs: Math.round(performance.now() - started) };
  };

  const highest = await highestBlockCount(options.sql);
  const opening = await checkServer(client, highest, options.signal);
  if ("held" in opening) return finish(opening.count, opening.held);

  const reading = await readPositions(options, client, tally);
  if (options.signal?.aborted)
    return finish(opening.count, { state: "unavailable", reason: "interrupted before the end of the pass (shutdown)" });

  const closing = await closingCheck(client, opening.count, options.signal);
  if ("held" in closing) return finish(opening.count, closing.held);

  // The second look comes after a check that saw no rollback, so it reads the state the server settled on.
  const confirmed = await readAgain(options, client, reading, tally);
  if (options.signal?.aborted)
    return finish(closing.count, { state: "unavailable", reason: "interrupted before the end of the pass (shutdown)" });
  const last = confirmed.readAgain ? await closingCheck(client, closing.count, options.signal) : closing;
  if ("held" in last) return finish(closing.count, last.held);

  await applyReading(options, confirmed, last.count - 1, tally);
  tally.stakesEnded += await endForeignStakes(options.sql, now());
  return finish(last.count, null);
}

/** The server is still indexing and its count has not fallen below `floor` (the count read before). */
async function closingCheck(client: OrdClient, floor: number, signal?: AbortSignal): Promise<ServerCheck> {
  const check = await checkServer(client, floor, signal);
  if (!("held" in check) || check.held.state !== "rewinding") return check;
  return { ...check, held: { state: "rewinding", reason: `block count fell from ${floor} to ${check.count} during the pass` } };
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
  const toRead = await unconfirmed(options, client, known, tally);
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
async function unconfirmed(options: SyncOptions, client: OrdClient, known: KnownOwner[], tally: Tally): Promise<KnownOwner[]> {
  const pairs = known.flatMap((item) =>
    item.seen && item.ownerAddress !== null ? [{ inscriptionId: item.inscriptionId, address: item.ownerAddress }] : [],
  );
  if (pairs.length === 0) return known;
  try {
    const outcome = await client.validateAll(pairs, options.signal);
    noteValidation(tally, outcome);
    return known.filter((item) => !outcome.confirmed.has(item.inscriptionId));
  } catch (error) {
    if (!(error instanceof OrdError)) throw error;
    if (error.reason === "unsupported" && !warnedNoValidate.has(options.ordUrl)) {
      warnedNoValidate.add(options.ordUrl);
      (options.logger ?? silentLogger).warn({
        msg: "the ord server has no /inscriptions/validate: every pass reads every item in full",
        ord: redactUrl(options.ordUrl),
      });
    }
    return known;
  }
}

function noteValidation(tally: Tally, outcome: ValidateOutcome): void {
  tally.validateRequests = outcome.batchSizes.length + outcome.timeouts;
  tally.validateTimeouts = outcome.timeouts;
  tally.validateBatchMax = Math.max(0, ...outcome.batchSizes);
}

function noteReading(reading: Reading, item: KnownOwner, position: OrdInscription, at: Date): void {
  const { address, kind, satpoint } = position;
  if (!item.seen) {
    reading.firstSightings.push({ itemId: item.itemId, address, kind, satpoint });
    return;
  }
  if (address === item.ownerAddress && kind === item.ownerKind && satpoint === item.satpoint) return;
  reading.moves.push({ itemId: item.itemId, inscriptionId: item.inscriptionId, address, kind, satpoint, blockHeight: null, at });
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

/**
 * Reads every move again (first sightings are not: no stake can exist on an item never seen, and an older
 * position recorded for one is corrected by the next pass as a move). A move read the same twice stays;
 * one read otherwise, or not read, is in doubt: left for the next pass.
 */
async function readAgain(
  options: SyncOptions,
  client: OrdClient,
  reading: Reading,
  tally: Tally,
): Promise<Reading & { readAgain: boolean }> {
  if (reading.moves.length === 0) return { ...reading, readAgain: false };
  const logger = options.logger ?? silentLogger;
  const moves: ReadMove[] = [];
  for await (const { item: first, result } of client.inscriptions(reading.moves, options.signal)) {
    tally.fullReads += 1;
    if (result.ok && samePosition(first, result.inscription)) {
      moves.push(first);
      continue;
    }
    tally.inDoubt += 1;
    if (!result.ok) tally.errors += 1;
    logger.warn({
      msg: "move held back: its second read differs (an answer from a rollback, or it moved again); read again next pass",
      inscriptionId: first.inscriptionId,
      first: { address: first.address, satpoint: first.satpoint },
      second: result.ok ? { address: result.inscription.address, satpoint: result.inscription.satpoint } : { error: result.error.message },
    });
  }
  return { firstSightings: reading.firstSightings, moves, readAgain: true };
}

const samePosition = (move: Move, position: OrdInscription) =>
  move.address === position.address && move.kind === position.kind && move.satpoint === position.satpoint;

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
    tally.stakesReopened += applied.stakesReopened;
    if (applied.returned) {
      tally.returns += 1;
      logger.warn({
        msg: "a reorg undid a move: the item is back where it was",
        itemId: move.itemId,
        satpoint: move.satpoint,
        holder: { address: move.address, kind: move.kind },
        stakesEnded: applied.stakesEnded,
        stakesReopened: applied.stakesReopened,
      });
    }
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
  if (applied) logger.info({ msg: "sync", ...run, ...figuresOf(tally) });
  else logger.warn({ msg: `sync held back (${run.state}): nothing changed`, ...run });
  return run;
}
