/**
 * Draw version 2 against the ord server (DECISIONS "Draw version 2"): selecting winners closes entries at
 * block `/block-count + 6`; the indexer's pass closes the giveaways whose end date passed, and draws each
 * closed one once `/block-count` ≥ its block + 7, with the hash `/blocks/{h}/{h+1}` gives that block then.
 * Entries never close while the ord server is unhealthy (`closeCheck`): stopped for good, rewinding, held
 * back as such by the indexer's last pass, or stalled (no new block for 10 minutes); the close waits for a
 * healthy pass. A reorg before the draw changes nothing: the hash is read only once six blocks sit on top,
 * never earlier, and never while the server is rolling back (its count below the highest it ever answered).
 */
import { nowMs } from "../app/domain/clock.ts";
import { isDrawable } from "../app/domain/draw.ts";
import { conflict } from "../app/domain/errors.ts";
import { silentLogger, type Logger } from "../app/utils/logger.server.ts";
import type { Queryable, Sql } from "../db/client.server.ts";
import type { Actor } from "../db/queries/audit.server.ts";
import {
  closeEntries,
  drawOutcome,
  giveawaysAwaitingDraw,
  giveawaysToClose,
  recordDraw,
  type DrawV2Outcome,
} from "../db/queries/draws.server.ts";
import { drawGiveawayWinner, getGiveaway, type DrawResult } from "../db/queries/giveaways.server.ts";
import { chainCursor, highestBlockCount, lastSyncRun, type SyncRun } from "../db/queries/ownership.server.ts";
import type { OrdClient, OrdStatus } from "./ord-client.server.ts";
import { requestLogIntegration } from "../app/utils/log-service.server.ts";

/** What draws need of the ord server. */
export type DrawChain = Pick<OrdClient, "status" | "blockCount" | "blockHash">;

export type SelectWinnersResult = (DrawResult & { version: 1 }) | DrawV2Outcome;

/** No new block for this long: the ord server (or its node) is stalled, and entries do not close. */
export const STALLED_AFTER_MS = 10 * 60_000;

/** The ord server's block count, and why entries must not close now (null: they may). */
export type CloseCheck = { blockCount: number; notNow: string | null };

/**
 * Whether entries may close now at the ord server's block count: not while the server reports it stopped
 * for good, answers below the highest count seen (rewinding), had the indexer's last pass held back as
 * rewinding or stalled, or has shown no new block for STALLED_AFTER_MS. A closed draw block must not exist
 * yet: a stalled or rewinding server's count is behind the chain by an unknown number of blocks.
 */
export async function closeCheck(sql: Queryable, chain: DrawChain): Promise<CloseCheck> {
  const status = await chain.status();
  const blockCount = await chain.blockCount();
  const notNow = whyEntriesStayOpen({ status, blockCount, cursor: await chainCursor(sql), lastPass: await lastSyncRun(sql) });
  return { blockCount, notNow };
}

type ChainHealth = {
  status: OrdStatus;
  blockCount: number;
  cursor: Awaited<ReturnType<typeof chainCursor>>;
  lastPass: SyncRun | null;
};

function whyEntriesStayOpen({ status, blockCount, cursor, lastPass }: ChainHealth): string | null {
  if (status === "unrecoverable") return "the ord server reports an unrecoverable reorg and has stopped indexing";
  if (cursor && blockCount < cursor.highestBlockCount) {
    return `the ord server is rewinding (block count ${blockCount}, below the highest seen, ${cursor.highestBlockCount})`;
  }
  if (lastPass && (lastPass.state === "rewinding" || lastPass.state === "stalled")) {
    return `the indexer's last pass was held back (${lastPass.state}: ${lastPass.reason})`;
  }
  const quietMs = cursor ? nowMs() - cursor.advancedAt.getTime() : 0;
  if (cursor && blockCount === cursor.highestBlockCount && quietMs >= STALLED_AFTER_MS) {
    return `the ord server is stalled (no new block for ${Math.floor(quietMs / 60_000)} minutes, block count ${blockCount})`;
  }
  return null;
}

/**
 * The admin's "Select Winner": version 1 draws at once; version 2 closes entries now at block
 * `/block-count + 6` and draws when that block has six on top (at once if it already has). While the ord
 * server is unhealthy entries stay open and this answers 409 saying why.
 */
export async function selectWinners(sql: Sql, chain: DrawChain, id: number, actor: Actor): Promise<SelectWinnersResult> {
  const giveaway = await getGiveaway(sql, id);
  if (giveaway.drawVersion === 1) {
    const drawn = await drawGiveawayWinner(sql, id, actor);
    requestLogIntegration();
    return { version: 1, ...drawn };
  }
  if (giveaway.drawSeed !== null) throw conflict("The winners of this giveaway have already been drawn");
  if (giveaway.drawBlockHeight === null && !giveaway.active) throw conflict("This giveaway is not active");
  const blockCount = giveaway.drawBlockHeight === null ? await closeWhenHealthy(sql, chain, id, actor) : await chain.blockCount();
  const { blockHeight } = await drawOutcome(sql, id);
  if (isDrawable(blockHeight, blockCount) && (await notRewinding(sql, blockCount))) {
    const outcome = await recordDraw(sql, id, await chain.blockHash(blockHeight), actor);
    // A draw is checkpointed at once, not at the next interval (docs/transparency.md).
    requestLogIntegration();
    return outcome;
  }
  return drawOutcome(sql, id);
}

/**
 * What Select Winner of giveaway `id` will ask the ord server, asked now: its status and block count (its status
 * only while entries are open), and the draw block's hash once six blocks sit on top. The chain answered is those
 * answers, so the draw can run inside a transaction that waits on no remote (an approved Select Winner: the
 * approval and the close commit together). A version-1 or drawn giveaway asks nothing.
 */
export async function readDrawChain(sql: Queryable, chain: DrawChain, id: number): Promise<DrawChain> {
  const giveaway = await getGiveaway(sql, id);
  if (giveaway.drawVersion === 1 || giveaway.drawSeed !== null) return answeredChain({});
  const status = giveaway.drawBlockHeight === null ? await chain.status() : undefined;
  const blockCount = await chain.blockCount();
  const height = giveaway.drawBlockHeight;
  const hash = height !== null && isDrawable(height, blockCount) ? { height, hash: await chain.blockHash(height) } : undefined;
  return answeredChain({ status, blockCount, hash });
}

/** A chain that answers what was read (a question not asked ahead: the giveaway changed meanwhile, 409). */
function answeredChain(known: { status?: OrdStatus; blockCount?: number; hash?: { height: number; hash: string } }): DrawChain {
  const answer = <T>(value: T | undefined): Promise<T> =>
    value === undefined
      ? Promise.reject(conflict("The giveaway changed while the ord server was asked: try again"))
      : Promise.resolve(value);
  return {
    status: () => answer(known.status),
    blockCount: () => answer(known.blockCount),
    blockHash: (height) => answer(known.hash?.height === height ? known.hash.hash : undefined),
  };
}

async function closeWhenHealthy(sql: Sql, chain: DrawChain, id: number, actor: Actor): Promise<number> {
  const { blockCount, notNow } = await closeCheck(sql, chain);
  if (notNow) throw conflict(`Entries stay open: ${notNow}. Entries close only while it is healthy; try again later.`);
  await closeEntries(sql, id, blockCount, actor, "winners selected");
  return blockCount;
}

async function notRewinding(sql: Queryable, blockCount: number): Promise<boolean> {
  const highest = await highestBlockCount(sql);
  return highest === null || blockCount >= highest;
}

/** `deferred`: ended giveaways left open because the ord server is not healthy (closed by a later pass). */
export type DrawPassReport = { closed: number[]; deferred: number[]; drawn: number[]; waiting: number[] };

/** One pass: close what ended, draw what is confirmed. A giveaway that fails is logged and tried again next pass. */
export async function runDrawPass({ sql, chain, logger = silentLogger }: { sql: Sql; chain: DrawChain; logger?: Logger }) {
  const report: DrawPassReport = { closed: [], deferred: [], drawn: [], waiting: [] };
  const toClose = await giveawaysToClose(sql);
  const awaiting = await giveawaysAwaitingDraw(sql);
  if (toClose.length === 0 && awaiting.length === 0) return report;
  const { blockCount, notNow } = await closeCheck(sql, chain);
  if (notNow && toClose.length > 0) {
    report.deferred.push(...toClose);
    logger.warn({ msg: "giveaway closes deferred: the ord server is not healthy", giveawayIds: toClose, reason: notNow });
  }
  for (const id of notNow ? [] : toClose) {
    const { closed, blockHeight } = await closeEntries(sql, id, blockCount, SYSTEM, "end date");
    if (closed) {
      report.closed.push(id);
      logger.info({ msg: "giveaway entries closed", giveawayId: id, blockHeight });
    }
  }
  if (!(await notRewinding(sql, blockCount))) {
    logger.info({ msg: "draws wait: the ord server is rolling back", blockCount });
    report.waiting.push(...awaiting.map((giveaway) => giveaway.id));
    return report;
  }
  for (const { id, blockHeight } of awaiting) {
    if (!isDrawable(blockHeight, blockCount)) {
      report.waiting.push(id);
      continue;
    }
    try {
      const outcome = await recordDraw(sql, id, await chain.blockHash(blockHeight), SYSTEM);
      report.drawn.push(id);
      logger.info({ msg: "giveaway drawn", giveawayId: id, blockHeight, blockHash: outcome.blockHash, winners: outcome.winnerAddresses });
    } catch (error) {
      report.waiting.push(id);
      logger.warn({ msg: "giveaway draw failed; next pass tries again", giveawayId: id, err: error as Error });
    }
  }
  if (report.drawn.length > 0) requestLogIntegration();
  return report;
}

const SYSTEM: Actor = { kind: "system" };
