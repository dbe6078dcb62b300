/**
 * Draw version 2 against the ord server (DECISIONS "Draw version 2"): selecting winners closes entries at
 * block `/block-count + 1`; the indexer's pass closes the giveaways whose end date passed, and draws each
 * closed one once `/block-count` ≥ its block + 7, with the hash `/blocks/{h}/{h+1}` gives that block then.
 * A reorg before that changes nothing: the hash is read only once six blocks sit on top, never earlier, and
 * never while the server is rolling back (its count below the highest it ever answered).
 */
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
import { highestBlockCount } from "../db/queries/ownership.server.ts";
import type { OrdClient } from "./ord-client.server.ts";

/** What draws need of the ord server. */
export type DrawChain = Pick<OrdClient, "blockCount" | "blockHash">;

export type SelectWinnersResult = (DrawResult & { version: 1 }) | DrawV2Outcome;

/**
 * The admin's "Select Winner": version 1 draws at once; version 2 closes entries now at the next block and
 * draws when that block has six on top (at once if it already has).
 */
export async function selectWinners(sql: Sql, chain: DrawChain, id: number, actor: Actor): Promise<SelectWinnersResult> {
  const giveaway = await getGiveaway(sql, id);
  if (giveaway.drawVersion === 1) return { version: 1, ...(await drawGiveawayWinner(sql, id, actor)) };
  if (giveaway.drawSeed !== null) throw conflict("The winners of this giveaway have already been drawn");
  if (giveaway.drawBlockHeight === null && !giveaway.active) throw conflict("This giveaway is not active");
  const blockCount = await chain.blockCount();
  const { blockHeight } = await closeEntries(sql, id, blockCount, actor, "winners selected");
  if (isDrawable(blockHeight, blockCount) && (await notRewinding(sql, blockCount))) {
    return recordDraw(sql, id, await chain.blockHash(blockHeight), actor);
  }
  return drawOutcome(sql, id);
}

async function notRewinding(sql: Queryable, blockCount: number): Promise<boolean> {
  const highest = await highestBlockCount(sql);
  return highest === null || blockCount >= highest;
}

export type DrawPassReport = { closed: number[]; drawn: number[]; waiting: number[] };

/** One pass: close what ended, draw what is confirmed. A giveaway that fails is logged and tried again next pass. */
export async function runDrawPass({ sql, chain, logger = silentLogger }: { sql: Sql; chain: DrawChain; logger?: Logger }) {
  const report: DrawPassReport = { closed: [], drawn: [], waiting: [] };
  const toClose = await giveawaysToClose(sql);
  const awaiting = await giveawaysAwaitingDraw(sql);
  if (toClose.length === 0 && awaiting.length === 0) return report;
  const blockCount = await chain.blockCount();
  for (const id of toClose) {
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
  return report;
}

const SYSTEM: Actor = { kind: "system" };
