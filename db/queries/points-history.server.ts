/**
 * A wallet's points history, newest first, each row with the balance it left (issue 18).
 *
 * `balanceAfter` is computed, never stored: the wallet's balance less a running sum, newest first, of the rows
 * above each one, read in the same statement as the rows, so it is exact in every snapshot. The balance is the
 * cached one (kept in step with the ledger by its statement trigger, in the same transaction; "Recalculate All
 * Points" rebuilds it from the ledger), less the rows at or above the cursor: a page costs what lies above
 * it, never the wallet's whole history (issue 26, item 5). Both walk the (address, id) index that carries the
 * amounts, and the window runs in the page's own order, so a page stops reading once it has its rows.
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

/**
 * The rows of `query`, newest first, with their balances (a statement to run, limit or stream).
 * `balanceBelow` is the sum of the wallet's rows below `before` when the caller already knows it (an
 * export carries it from one page to the next); otherwise the statement sums them itself.
 */
export function historyRows(
  sql: Queryable,
  { address, before = null, kinds = null }: HistoryQuery,
  { limit, balanceBelow }: { limit?: number; balanceBelow?: number } = {},
) {
  const below = before === null ? sql`` : sql`and id < ${before}`;
  // The balance below the page: the wallet's balance (its cached row, which the ledger's own trigger keeps in
  // step in the inserting transaction, so this statement's snapshot sees both alike) less the rows at or above
  // the cursor. The first page reads one row instead of summing the wallet's whole history.
  const newer =
    before === null ? sql`0` : sql`(select coalesce(sum(amount), 0) from points_ledger where address = ${address} and id >= ${before})`;
  const startBalance =
    balanceBelow === undefined
      ? sql`(coalesce((select units from wallet_balances where address = ${address}), 0) - ${newer})`
      : sql`${balanceBelow}::int8`;
  // Without a kind filter a page's rows are picked first by id and amount alone (the index that carries them),
  // then read in full: however the planner reads them (PGlite is never analyzed, so it may sort every row
  // below the cursor), it sorts narrow rows keeping only the page, never the wallet's whole history.
  const rows =
    kinds === null && limit !== undefined
      ? sql`(select l.* from (select id from points_ledger where address = ${address} ${below} order by id desc limit ${limit}) as p
             join points_ledger l using (id))`
      : sql`(select * from points_ledger where address = ${address} ${below})`;
  return sql<LedgerRow[]>`
    select * from (
      select id, created_at, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units,
             boost_version, rarity_percent_sum, boost_percent_sum,
             giveaway_id, giveaway_title, tickets, description, actor, details_source,
             (${startBalance}
               - coalesce(sum(amount) over (order by id desc rows between unbounded preceding and 1 preceding), 0))::int8
               as balance_after
      from ${rows} as r
      order by id desc
    ) as h
    ${kinds === null ? sql`` : sql`where kind = any(${kinds as string[]})`}
    order by id desc
    ${limit === undefined ? sql`` : sql`limit ${limit}`}`;
}

/** One page of at most `limit` entries; `nextCursor` names the rest (null at the oldest). */
export async function pointsHistoryPage(sql: Queryable, query: HistoryQuery, limit: number): Promise<HistoryPage> {
  const rows = await historyRows(sql, query, { limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    entries: page.map(historyEntry),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  };
}

/** Where an export's next page starts: the rows below `before`, which sum to `balanceBelow` units. */
export type HistoryExportCursor = { before: number; balanceBelow: number };

/**
 * One page of an export of `query` (app/utils/export.server.ts): the next `limit` rows of the wallet, every
 * kind (filtered here, so the balance carried on counts them all), each page its own short statement.
 * The first page sums the rows below it; each later one starts from the balance the page before it left,
 * so the balances stay those of the first page's moment: a row written during the download has a higher
 * id than the first page's and is never read, and nothing is summed twice.
 */
export async function historyExportPage(
  sql: Queryable,
  query: HistoryQuery,
  cursor: HistoryExportCursor | null,
  limit: number,
): Promise<{ rows: HistoryEntry[]; next: HistoryExportCursor | null }> {
  const rows = cursor
    ? await historyRows(sql, { address: query.address, before: cursor.before }, { limit, balanceBelow: cursor.balanceBelow })
    : await historyRows(sql, { address: query.address, before: query.before }, { limit });
  const last = rows.at(-1);
  const next = last && rows.length === limit ? { before: last.id, balanceBelow: last.balanceAfter - last.amount } : null;
  const kinds = query.kinds;
  return { rows: (kinds ? rows.filter((row) => kinds.includes(row.kind)) : rows).map(historyEntry), next };
}
