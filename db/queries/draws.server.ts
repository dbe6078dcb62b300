/**
 * Draw version 2 in the database (app/domain/draw.ts has the rule): closing entries at a block, the
 * frozen entries, the recorded draw, and what GET /api/giveaways/{id}/draw publishes for both versions.
 * The block count and hash come from the ord server through indexer/draws.server.ts.
 */
import { now } from "../../app/domain/clock.ts";
import { canonicalEntries, drawBlockHeightFor, drawWinnersV2, type DrawPick, type PublishedDraw } from "../../app/domain/draw.ts";
import { conflict } from "../../app/domain/errors.ts";
import type { Queryable, TransactionSql } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { getGiveaway, lockGiveaway } from "./giveaways.server.ts";
import { giveawayDrawn, notify } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

/** Where a giveaway's draw stands: entries open, closed at a block (drawing), or drawn. */
export type DrawStatus = "open" | "drawing" | "drawn";

export type GiveawayDraw = PublishedDraw & { status: DrawStatus };

/** A version-2 draw after selecting winners or a draw pass: still waiting for its block, or drawn. */
export type DrawV2Outcome = {
  version: 2;
  status: "drawing" | "drawn";
  blockHeight: number;
  /** When entries closed (ISO 8601): block blockHeight must have been mined after it. */
  closedAt: string;
  blockHash: string | null;
  seed: string | null;
  winnerAddresses: string[];
};

type DrawRow = {
  drawVersion: 1 | 2;
  drawCommitment: string;
  drawSeed: string;
  winners: number;
  winnerAddress: string | null;
  drawnAt: Date | null;
  drawBlockHeight: number | null;
  closedAt: Date | null;
  drawBlockHash: string | null;
};

export async function getGiveawayDraw(sql: Queryable, id: number): Promise<GiveawayDraw> {
  await getGiveaway(sql, id); // 404 for an unknown id
  const [row] = await sql<DrawRow[]>`
    select draw_version, draw_commitment, draw_seed, winners, winner_address, drawn_at, draw_block_height, closed_at, draw_block_hash
    from giveaways where id = ${id}`;
  const drawn = row.drawnAt !== null;
  const base = {
    commitment: row.drawCommitment,
    seed: drawn ? row.drawSeed : null,
    winners: row.winners,
  };
  if (row.drawVersion === 1) {
    // Version 1 draws over the entry rows in ascending id.
    const entries = await sql<{ address: string; tickets: number }[]>`
      select address, tickets from giveaway_entries where giveaway_id = ${id} order by id`;
    const winnerAddresses = row.winnerAddress ? [row.winnerAddress] : [];
    return {
      ...base,
      version: 1,
      status: drawn ? "drawn" : "open",
      blockHeight: null,
      closedAt: null,
      blockHash: null,
      entries,
      winnerAddresses,
    };
  }
  const closed = row.drawBlockHeight !== null;
  const entries = closed ? await frozenEntries(sql, id) : canonicalEntries(await liveEntries(sql, id));
  const winnerAddresses = (
    await sql<{ address: string }[]>`
    select address from giveaway_winners where giveaway_id = ${id} order by k`
  ).map((w) => w.address);
  return {
    ...base,
    version: 2,
    status: drawn ? "drawn" : closed ? "drawing" : "open",
    blockHeight: row.drawBlockHeight,
    closedAt: row.closedAt?.toISOString() ?? null,
    blockHash: row.drawBlockHash,
    entries,
    winnerAddresses,
  };
}

function liveEntries(sql: Queryable, id: number) {
  return sql<{ address: string; tickets: number }[]>`
    select address, tickets from giveaway_entries where giveaway_id = ${id}`;
}

function frozenEntries(sql: Queryable, id: number) {
  return sql<{ address: string; tickets: number }[]>`
    select address, tickets::int8 as tickets from giveaway_draw_entries where giveaway_id = ${id} order by ordinal`;
}

/**
 * Closes a version-2 giveaway's entries at block `blockCount + 6` (drawBlockHeightFor) and freezes them.
 * Idempotent: a giveaway already closed keeps the block it was closed at (`closed: false`). The caller
 * checks first that the ord server is healthy (indexer/draws.server.ts).
 */
export async function closeEntries(
  sql: Queryable,
  id: number,
  blockCount: number,
  actor: Actor,
  reason: "winners selected" | "end date",
): Promise<{ closed: boolean; blockHeight: number }> {
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, id, "update");
    if (giveaway.drawVersion !== 2) throw conflict("This giveaway is drawn with draw version 1");
    if (giveaway.drawBlockHeight !== null) return { closed: false, blockHeight: giveaway.drawBlockHeight };
    const blockHeight = drawBlockHeightFor(blockCount);
    const entries = canonicalEntries(await liveEntries(tx, id));
    // The frozen entries first: once the giveaway records its close, the database refuses any more (migration 0017).
    if (entries.length > 0) {
      await tx`
        insert into giveaway_draw_entries ${tx(
          entries.map((entry, ordinal) => ({ giveawayId: id, ordinal, address: entry.address, tickets: entry.tickets })),
        )}`;
    }
    const closedAt = now();
    await tx`update giveaways set closed_at = ${closedAt}, draw_block_height = ${blockHeight} where id = ${id}`;
    const tickets = entries.reduce((sum, entry) => sum + entry.tickets, 0);
    await recordAudit(
      tx,
      actor,
      "giveaway.close",
      `giveaway:${id}`,
      { reason, blockCount, blockHeight, entries: entries.length, tickets },
      { before: { closedAt: null, drawBlockHeight: null }, after: { closedAt, drawBlockHeight: blockHeight } },
    );
    return { closed: true, blockHeight };
  });
}

/** Version-2 giveaways whose end date has passed and whose entries are not closed yet (active ones only). */
export async function giveawaysToClose(sql: Queryable): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    select id from giveaways
    where draw_version = 2 and active and draw_block_height is null and end_date <= ${now()}
    order by id`;
  return rows.map((row) => row.id);
}

/** Closed version-2 giveaways waiting for their block. */
export async function giveawaysAwaitingDraw(sql: Queryable): Promise<{ id: number; blockHeight: number }[]> {
  return sql<{ id: number; blockHeight: number }[]>`
    select id, draw_block_height as block_height from giveaways
    where draw_version = 2 and draw_block_height is not null and drawn_at is null
    order by id`;
}

/**
 * Draws a closed version-2 giveaway with the hash of its block: reveals the seed, records the winners in
 * draw order. Once only: a second call answers what the first recorded.
 */
export async function recordDraw(sql: Queryable, id: number, blockHash: string, actor: Actor): Promise<DrawV2Outcome> {
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, id, "update");
    if (giveaway.drawVersion !== 2 || giveaway.drawBlockHeight === null) throw conflict("This giveaway's entries are not closed");
    if (giveaway.drawnAt) return drawOutcome(tx, id);
    const entries = await frozenEntries(tx, id);
    const picks = drawWinnersV2(giveaway.drawSeed, blockHash, entries, giveaway.winners);
    await saveWinners(tx, id, picks);
    await tx`
      update giveaways set draw_block_hash = ${blockHash}, drawn_at = ${now()}, winner_address = ${picks[0]?.address ?? null}
      where id = ${id}`;
    await recordAudit(
      tx,
      actor,
      "giveaway.draw",
      `giveaway:${id}`,
      {
        drawVersion: 2,
        blockHeight: giveaway.drawBlockHeight,
        blockHash,
        drawSeed: giveaway.drawSeed,
        winners: picks,
      },
      {
        before: { drawBlockHash: null, winnerAddress: null },
        after: { drawBlockHash: blockHash, winnerAddresses: picks.map((pick) => pick.address) },
      },
    );
    await notify(tx, giveawayDrawn({ id, title: giveaway.title, winners: picks.map((pick) => pick.address) }));
    return drawOutcome(tx, id);
  });
}

async function saveWinners(tx: TransactionSql, id: number, picks: readonly DrawPick[]) {
  if (picks.length === 0) return;
  await tx`
    insert into giveaway_winners ${tx(
      picks.map((pick) => ({ giveawayId: id, k: pick.k, address: pick.address, ticket: pick.ticket, totalTickets: pick.totalTickets })),
    )}`;
}

export async function drawOutcome(sql: Queryable, id: number): Promise<DrawV2Outcome> {
  const draw = await getGiveawayDraw(sql, id);
  if (draw.version !== 2 || draw.blockHeight === null || draw.closedAt === null) throw conflict("This giveaway's entries are not closed");
  return {
    version: 2,
    status: draw.status === "drawn" ? "drawn" : "drawing",
    blockHeight: draw.blockHeight,
    closedAt: draw.closedAt,
    blockHash: draw.blockHash,
    seed: draw.seed,
    winnerAddresses: draw.winnerAddresses,
  };
}
