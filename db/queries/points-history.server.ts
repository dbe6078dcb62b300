/**
 * A wallet's points history, newest first, each row with the balance it left (issue 18).
 *
 * `balanceAfter` is computed, never stored: the sum of the wallet's ledger rows up to that row (in id
 * order), read in the same statement as the rows, so it is exact in every snapshot and cannot drift from
 * the ledger. A page below cursor C is the sum of the rows below C minus a running sum, newest first, of
 * the rows above each one; both walk the (address, id) index that carries the amounts, and the window
 * runs in the page's own order, so a page stops reading once it has its rows.
 */
import { historyEntry, type HistoryEntry, type LedgerKind, type LedgerRow } from "../../app/domain/points-history.ts";
import type { Queryable } from "../client.server.ts";

export type HistoryQuery = {
  address: string;
  /** Only rows with a smaller id (the keyset cursor). */
  before?: number | null;
  /** Only these kinds (the balances stay the wallet's: every kind counts towards them). */
  kinds?: readonly LedgerKind[] | null;
};

export type HistoryPage = { entries: HistoryEntry[]; nextCursor: string | null };

/** The rows of `query`, newest first, with their balances (a statement to run, limit or stream). */
export function historyRows(sql: Queryable, { address, before = null, kinds = null }: HistoryQuery, limit?: number) {
  const below = before === null ? sql`` : sql`and id < ${before}`;
  return sql<LedgerRow[]>`
    select * from (
      select id, created_at, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
             giveaway_id, giveaway_title, tickets, description, actor, details_source,
             ((select coalesce(sum(amount), 0) from points_ledger where address = ${address} ${below})
               - coalesce(sum(amount) over (order by id desc rows between unbounded preceding and 1 preceding), 0))::int8
               as balance_after
      from points_ledger
      where address = ${address} ${below}
      order by id desc
    ) as h
    ${kinds === null ? sql`` : sql`where kind = any(${kinds as string[]})`}
    order by id desc
    ${limit === undefined ? sql`` : sql`limit ${limit}`}`;
}

/** One page of at most `limit` entries; `nextCursor` names the rest (null at the oldest). */
export async function pointsHistoryPage(sql: Queryable, query: HistoryQuery, limit: number): Promise<HistoryPage> {
  const rows = await historyRows(sql, query, limit + 1);
  const page = rows.slice(0, limit);
  return {
    entries: page.map(historyEntry),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  };
}

/**
 * Every entry of `query`, newest first, in batches read through a cursor: one statement (one snapshot, so
 * every balance is exact), read only as fast as the caller asks for the next batch.
 */
export async function* historyBatches(sql: Queryable, query: HistoryQuery, batchSize = 1000): AsyncGenerator<HistoryEntry[]> {
  for await (const rows of historyRows(sql, query).cursor(batchSize)) yield rows.map(historyEntry);
}
