/**
 * Giveaways: entries spend points under a row lock on the wallet's balance; the winner is drawn by the
 * commit-reveal scheme of app/domain/giveaways.ts; deleting an undrawn giveaway refunds its entries.
 */
import type { z } from "zod";
import { isDogecoinAddress } from "../../app/domain/address.ts";
import { now } from "../../app/domain/clock.ts";
import { badRequest, conflict, notFound } from "../../app/domain/errors.ts";
import {
  DOGECOIN_BLOCK_MS,
  drawProgressOf,
  drawWinner,
  isGiveawayOpen,
  newDrawSeed,
  winningTicket,
  type DrawProgress,
} from "../../app/domain/giveaways.ts";
import { IMAGE_URL_RULE, isGiveawayImageUrl } from "../../app/domain/image-url.ts";
import { UNITS_PER_POINT, unitsToPoints } from "../../app/domain/rewards.ts";
import { createGiveawaySchema, MAX_TICKETS, MESSAGES } from "../../app/domain/validation.ts";
import type { Queryable, TransactionSql } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { appendLedger, lockBalanceUnits } from "./points.server.ts";
import { parseOrRefuse, requireRowId } from "./input.server.ts";
import { giveawayDrawn, giveawayOpened, notify } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type Giveaway = {
  id: number;
  title: string;
  description: string;
  imageUrl: string;
  pointsCost: number;
  endDate: Date;
  active: boolean;
  winnerAddress: string | null;
  entriesCount: number;
  /** The wallets that entered (an entry per purchase: one wallet may have several). */
  holdersCount: number;
  ticketsCount: number;
  drawCommitment: string;
  /** Revealed only once drawn. */
  drawSeed: string | null;
  drawVersion: 1 | 2;
  /** How many winners the draw picks (version 1: one). */
  winners: number;
  /** Version 2: the draw block, fixed when entries close; null before. */
  drawBlockHeight: number | null;
  /** Version 2: that block's hash, read once six blocks sit on top of it; null before. */
  drawBlockHash: string | null;
  /** The winners in draw order (version 1: the one winner). */
  winnerAddresses: string[];
  /** While entries are closed and the draw waits for its block: the blocks to go (null otherwise). */
  drawProgress: DrawProgress | null;
};

export type GiveawayEntry = {
  id: number;
  giveawayId: number;
  address: string;
  tickets: number;
  enteredAt: Date;
  isWinner: boolean;
};

export type UserGiveawayEntry = GiveawayEntry & {
  giveawayTitle: string;
  pointsCost: number;
  endDate: Date;
  active: boolean;
  /** The giveaway's (first) winner once drawn (a drawn giveaway is closed). */
  winnerAddress: string | null;
  /** Set once a version-2 giveaway's entries closed for its draw. */
  drawBlockHeight: number | null;
  /** When this wallet claimed its prize (winners only); null before, and for anyone else. */
  claimedAt: Date | null;
};

export type CreateGiveawayInput = z.input<typeof createGiveawaySchema>;

export type EnterGiveawayInput = { giveawayId: number; address: string; tickets: number };

export type DrawResult = {
  winner: { address: string; tickets: number };
  drawSeed: string;
  drawCommitment: string;
  winningTicket: number;
  totalTickets: number;
};

function requireImageUrl(imageUrl: unknown): string {
  const text = typeof imageUrl === "string" ? imageUrl.trim() : "";
  if (!text) throw badRequest(MESSAGES.missingFields);
  if (!isGiveawayImageUrl(text)) throw badRequest(IMAGE_URL_RULE);
  return text;
}

const giveawayColumns = (sql: Queryable) => sql`
  g.id, g.title, g.description, g.image_url, g.points_cost, g.end_date, g.active, g.winner_address,
  g.draw_commitment,
  case when g.drawn_at is not null then g.draw_seed end as draw_seed,
  g.draw_version, g.winners, g.draw_block_height, g.draw_block_hash,
  case when g.draw_version = 1 then array_remove(array[g.winner_address], null)
       else array(select w.address from giveaway_winners w where w.giveaway_id = g.id order by w.k) end as winner_addresses,
  (select count(*)::int from giveaway_entries e where e.giveaway_id = g.id) as entries_count,
  (select count(distinct e.address)::int from giveaway_entries e where e.giveaway_id = g.id) as holders_count,
  (select coalesce(sum(e.tickets), 0)::int8 from giveaway_entries e where e.giveaway_id = g.id) as tickets_count,
  g.drawn_at is not null as drawn,
  (select c.highest_block_count from chain_cursor c limit 1) as chain_block_count`;

type GiveawayRow = Omit<Giveaway, "drawProgress"> & { drawn: boolean; chainBlockCount: number | null };

/**
 * `blockMs`: the chain's block interval, for the draw's "about {m} min" (Dogecoin's minute; the demo chain's
 * 10 s in demo mode). The block count is the highest the indexer's sync passes have read.
 */
function withProgress({ drawn, chainBlockCount, ...giveaway }: GiveawayRow, blockMs: number): Giveaway {
  const waiting = !drawn && giveaway.drawBlockHeight !== null && chainBlockCount !== null;
  return { ...giveaway, drawProgress: waiting ? drawProgressOf(giveaway.drawBlockHeight!, chainBlockCount, blockMs) : null };
}

export async function listGiveaways(sql: Queryable, blockMs: number = DOGECOIN_BLOCK_MS): Promise<Giveaway[]> {
  const rows = await sql<GiveawayRow[]>`select ${giveawayColumns(sql)} from giveaways g order by g.id desc`;
  return rows.map((row) => withProgress(row, blockMs));
}

export async function getGiveaway(sql: Queryable, id: number, blockMs: number = DOGECOIN_BLOCK_MS): Promise<Giveaway> {
  requireRowId(id, "Giveaway");
  const [giveaway] = await sql<GiveawayRow[]>`select ${giveawayColumns(sql)} from giveaways g where g.id = ${id}`;
  if (!giveaway) throw notFound("Giveaway not found");
  return withProgress(giveaway, blockMs);
}

export type LockedGiveaway = {
  id: number;
  title: string;
  active: boolean;
  endDate: Date;
  pointsCost: number;
  winnerAddress: string | null;
  drawSeed: string;
  drawCommitment: string;
  drawVersion: 1 | 2;
  winners: number;
  drawBlockHeight: number | null;
  drawnAt: Date | null;
};

export async function lockGiveaway(tx: TransactionSql, id: number, mode: "share" | "update"): Promise<LockedGiveaway> {
  requireRowId(id, "Giveaway");
  const [row] = await tx<LockedGiveaway[]>`
    select id, title, active, end_date, points_cost, winner_address, draw_seed, draw_commitment, draw_version,
           winners, draw_block_height, drawn_at
    from giveaways where id = ${id} ${mode === "share" ? tx`for share` : tx`for update`}`;
  if (!row) throw notFound("Giveaway not found");
  return row;
}

export async function createGiveaway(sql: Queryable, input: CreateGiveawayInput, actor: Actor): Promise<Giveaway> {
  const { title, description, pointsCost, endDate, winners, ...rest } = parseOrRefuse(createGiveawaySchema, input);
  const imageUrl = requireImageUrl(rest.imageUrl);
  const { seed, commitment } = newDrawSeed();
  return inTransaction(sql, async (tx) => {
    // Every new giveaway draws with version 2 (operator-blind); version 1 is kept for the older ones.
    const [{ id }] = await tx<{ id: number }[]>`
      insert into giveaways (title, description, image_url, points_cost, end_date, active, draw_commitment, draw_seed,
                             draw_version, winners, created_at)
      values (${title}, ${description}, ${imageUrl}, ${pointsCost}, ${endDate}, true, ${commitment}, ${seed},
              2, ${winners}, ${now()})
      returning id`;
    const created = await getGiveaway(tx, id);
    await recordAudit(
      tx,
      actor,
      "giveaway.create",
      `giveaway:${id}`,
      { title, pointsCost, endDate, winners, drawVersion: 2, drawCommitment: commitment },
      { after: created },
    );
    await notify(tx, [giveawayOpened(created)]);
    return created;
  });
}

/**
 * Changes every field of a giveaway nobody has entered yet (the create form's rules), except its number of
 * winners, published with its draw commitment (a different number is refused with 409). Refused with 409 once
 * it has an entry (holders entered on its terms: only its image may change then) or once its entries have
 * closed for a draw. Audited with the fields before → after.
 */
export async function updateGiveaway(sql: Queryable, id: number, input: CreateGiveawayInput, actor: Actor): Promise<Giveaway> {
  const { title, description, pointsCost, endDate, winners, ...rest } = parseOrRefuse(createGiveawaySchema, input);
  const imageUrl = requireImageUrl(rest.imageUrl);
  return inTransaction(sql, async (tx) => {
    const locked = await lockGiveaway(tx, id, "update");
    // The lock on the giveaway row is what an entry takes too (for share): no entry can slip in meanwhile.
    const [{ entries }] = await tx<{ entries: number }[]>`select count(*)::int as entries from giveaway_entries where giveaway_id = ${id}`;
    if (entries > 0) {
      throw conflict(`This giveaway has ${entries} ${entries === 1 ? "entry" : "entries"}: only its image can change now`);
    }
    if (locked.drawBlockHeight !== null || locked.winnerAddress !== null || locked.drawnAt !== null) {
      throw conflict("This giveaway's entries are closed for its draw: it can no longer be edited");
    }
    // The number of winners was published with the draw commitment and never changes (migration 0017).
    if (input.winners !== undefined && winners !== locked.winners) {
      throw conflict(`The number of winners (${locked.winners}) was published with the draw commitment and never changes`);
    }
    const fields = (giveaway: Giveaway) => ({
      title: giveaway.title,
      description: giveaway.description,
      imageUrl: giveaway.imageUrl,
      pointsCost: giveaway.pointsCost,
      endDate: giveaway.endDate,
    });
    const before = fields(await getGiveaway(tx, id));
    await tx`
      update giveaways set title = ${title}, description = ${description}, image_url = ${imageUrl}, points_cost = ${pointsCost},
                           end_date = ${endDate}
      where id = ${id}`;
    const updated = await getGiveaway(tx, id);
    const after = fields(updated);
    const changed = Object.keys(after).filter(
      (key) => JSON.stringify(before[key as keyof typeof before]) !== JSON.stringify(after[key as keyof typeof after]),
    );
    await recordAudit(tx, actor, "giveaway.update", `giveaway:${id}`, { changed }, { before, after });
    return updated;
  });
}

export async function setGiveawayActive(sql: Queryable, id: number, active: boolean, actor: Actor): Promise<Giveaway> {
  if (typeof active !== "boolean") throw badRequest("active must be true or false");
  return inTransaction(sql, async (tx) => {
    const before = await lockGiveaway(tx, id, "update");
    await tx`update giveaways set active = ${active} where id = ${id}`;
    const change = { before: { active: before.active }, after: { active } };
    await recordAudit(tx, actor, active ? "giveaway.activate" : "giveaway.end", `giveaway:${id}`, {}, change);
    const after = await getGiveaway(tx, id);
    // Activated while entries can still open: announced (once for good, by the outbox's key).
    if (active && !before.active && !before.drawnAt && before.endDate > now()) await notify(tx, [giveawayOpened(after)]);
    return after;
  });
}

export async function setGiveawayImage(sql: Queryable, id: number, imageUrl: string, actor: Actor): Promise<Giveaway> {
  const url = requireImageUrl(imageUrl);
  return inTransaction(sql, async (tx) => {
    await lockGiveaway(tx, id, "update");
    const { imageUrl: previous } = await getGiveaway(tx, id);
    await tx`update giveaways set image_url = ${url} where id = ${id}`;
    await recordAudit(
      tx,
      actor,
      "giveaway.image",
      `giveaway:${id}`,
      { imageUrl: url },
      { before: { imageUrl: previous }, after: { imageUrl: url } },
    );
    return getGiveaway(tx, id);
  });
}

/** Version 1 marks the winning entry; a version-2 winner wins with every entry of its address. */
const isWinner = (sql: Queryable) => sql`
  (e.is_winner or exists (select 1 from giveaway_winners w where w.giveaway_id = e.giveaway_id and w.address = e.address)) as is_winner`;

export async function listEntries(sql: Queryable, giveawayId: number): Promise<GiveawayEntry[]> {
  await getGiveaway(sql, giveawayId);
  return sql<GiveawayEntry[]>`
    select e.id, e.giveaway_id, e.address, e.tickets, e.entered_at, ${isWinner(sql)}
    from giveaway_entries e where e.giveaway_id = ${giveawayId} order by e.id`;
}

export async function listEntriesOfAddress(sql: Queryable, address: string): Promise<UserGiveawayEntry[]> {
  return sql<UserGiveawayEntry[]>`
    select e.id, e.giveaway_id, e.address, e.tickets, e.entered_at, ${isWinner(sql)},
           g.title as giveaway_title, g.points_cost, g.end_date, g.active, g.winner_address,
           g.draw_block_height,
           (select c.claimed_at from giveaway_claims c where c.giveaway_id = e.giveaway_id and c.address = e.address) as claimed_at
    from giveaway_entries e join giveaways g on g.id = e.giveaway_id
    where e.address = ${address}
    order by e.id desc`;
}

/**
 * Spends pointsCost × tickets and records the entry. The giveaway row is share-locked (a draw or delete
 * waits for the entry) and the balance row is locked, so concurrent entries never overspend.
 */
export async function enterGiveaway(sql: Queryable, input: EnterGiveawayInput): Promise<GiveawayEntry> {
  const { giveawayId, address, tickets } = input;
  if (!isDogecoinAddress(address)) throw badRequest(MESSAGES.invalidAddress);
  if (!Number.isSafeInteger(tickets) || tickets < 1) throw badRequest("Tickets must be a whole number of at least 1");
  if (tickets > MAX_TICKETS) throw badRequest(`Tickets must be at most ${MAX_TICKETS}`);
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, giveawayId, "share");
    if (giveaway.winnerAddress) throw conflict("A winner has already been drawn for this giveaway");
    if (!isGiveawayOpen(giveaway, now()) || giveaway.drawnAt) throw conflict("This giveaway is closed");
    const costPoints = giveaway.pointsCost * tickets;
    const costUnits = costPoints * UNITS_PER_POINT;
    const balanceUnits = await lockBalanceUnits(tx, address);
    if (!Number.isSafeInteger(costUnits) || costUnits > balanceUnits) {
      throw conflict(
        `Not enough points: you need ${costPoints} points for ${tickets} ${tickets === 1 ? "ticket" : "tickets"}, but you only have ${Math.floor(unitsToPoints(Math.max(0, balanceUnits)))}.`,
      );
    }
    const [entry] = await tx<GiveawayEntry[]>`
      insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at)
      values (${giveawayId}, ${address}, ${tickets}, ${costUnits}, ${now()})
      returning id, giveaway_id, address, tickets, entered_at, is_winner`;
    await appendLedger(tx, [
      {
        address,
        kind: "giveaway_entry",
        units: -costUnits,
        reference: `giveaway:${giveawayId}:entry:${entry.id}`,
        description: `Giveaway #${giveawayId}: ${tickets} ticket(s)`,
        giveaway: { id: giveawayId, title: giveaway.title, tickets },
        actor: { kind: "web", address },
      },
    ]);
    return entry;
  });
}

/**
 * Version 1: reveals the seed and marks the entry holding the winning ticket (entries in ascending id).
 * Version-2 giveaways are drawn by app/domain/draw.ts through indexer/draws.server.ts.
 */
export async function drawGiveawayWinner(sql: Queryable, id: number, actor: Actor): Promise<DrawResult> {
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, id, "update");
    if (giveaway.drawVersion !== 1) throw conflict("This giveaway is drawn with draw version 2: select its winners instead");
    if (giveaway.winnerAddress) throw conflict("A winner has already been drawn for this giveaway");
    if (!giveaway.active) throw conflict("This giveaway is not active");
    const entries = await tx<{ id: number; address: string; tickets: number }[]>`
      select id, address, tickets from giveaway_entries where giveaway_id = ${id} order by id`;
    if (entries.length === 0) throw conflict("This giveaway has no entries");
    const winningEntry = drawWinner(giveaway.drawSeed, entries);
    const totalTickets = entries.reduce((sum, entry) => sum + entry.tickets, 0);
    const winnerTickets = entries.filter((entry) => entry.address === winningEntry.address).reduce((sum, entry) => sum + entry.tickets, 0);
    await tx`update giveaway_entries set is_winner = true where id = ${winningEntry.id}`;
    await tx`update giveaways set winner_address = ${winningEntry.address}, drawn_at = ${now()} where id = ${id}`;
    const result: DrawResult = {
      winner: { address: winningEntry.address, tickets: winnerTickets },
      drawSeed: giveaway.drawSeed,
      drawCommitment: giveaway.drawCommitment,
      winningTicket: winningTicket(giveaway.drawSeed, totalTickets),
      totalTickets,
    };
    const change = { before: { winnerAddress: null }, after: { winnerAddress: winningEntry.address } };
    await recordAudit(tx, actor, "giveaway.draw", `giveaway:${id}`, { ...result, entryId: winningEntry.id }, change);
    await notify(tx, giveawayDrawn({ id, title: giveaway.title, winners: [winningEntry.address] }));
    return result;
  });
}

/** Deletes a giveaway and its entries; without a winner, every entry's points go back through the ledger. */
export async function deleteGiveaway(sql: Queryable, id: number, actor: Actor): Promise<{ refunded: number; refundedPoints: number }> {
  return inTransaction(sql, async (tx) => {
    const giveaway = await lockGiveaway(tx, id, "update");
    const deleted = await getGiveaway(tx, id);
    const entries = giveaway.winnerAddress
      ? []
      : await tx<{ id: number; address: string; costUnits: number; tickets: number }[]>`
          select id, address, cost_units, tickets from giveaway_entries where giveaway_id = ${id} order by id`;
    await appendLedger(
      tx,
      entries.map((entry) => ({
        address: entry.address,
        kind: "giveaway_refund" as const,
        units: entry.costUnits,
        reference: `giveaway:${id}:entry:${entry.id}`,
        description: `Refund: giveaway #${id} deleted`,
        giveaway: { id, title: giveaway.title, tickets: entry.tickets },
        actor,
      })),
    );
    const refundedPoints = unitsToPoints(entries.reduce((sum, entry) => sum + entry.costUnits, 0));
    // The audit row first: the database deletes a closed giveaway only when its giveaway.delete row exists (migration 0017).
    await recordAudit(tx, actor, "giveaway.delete", `giveaway:${id}`, { refunded: entries.length, refundedPoints }, { before: deleted });
    await tx`delete from giveaways where id = ${id}`;
    return { refunded: entries.length, refundedPoints };
  });
}
