/** What /api/health reports about the indexer, read from the tables it writes. */
import type { Queryable } from "../client.server.ts";
import type { SyncState } from "./ownership.server.ts";

/**
 * The indexer's sync state and the last pass (time, height, counts), the highest block count seen, the
 * held-back passes since the last applied one and in all, and the last credited hour.
 * `syncState` is `ok`, `rewinding` (the ord server answers from an older state), `stalled` (it stopped
 * indexing) or `unavailable` (it did not answer); null before the first pass.
 */
export type IndexerHealth = {
  syncState: SyncState | null;
  syncReason: string | null;
  lastSyncAt: Date | null;
  lastSyncBlockHeight: number | null;
  lastSyncItemsChecked: number | null;
  lastSyncOwnersChanged: number | null;
  lastSyncStakesEnded: number | null;
  lastSyncErrors: number | null;
  lastAppliedSyncAt: Date | null;
  highestBlockCount: number | null;
  heldBackPassesInARow: number;
  heldBackPassesTotal: number;
  lastAccrualHour: Date | null;
  lastAccrualAt: Date | null;
};

export async function indexerHealth(sql: Queryable): Promise<IndexerHealth> {
  const [row] = await sql<IndexerHealth[]>`
    select s.state as sync_state, s.reason as sync_reason,
           s.finished_at as last_sync_at, s.block_height as last_sync_block_height,
           s.items_checked as last_sync_items_checked, s.owners_changed as last_sync_owners_changed,
           s.stakes_ended as last_sync_stakes_ended, s.errors as last_sync_errors,
           ok.finished_at as last_applied_sync_at,
           (select highest_block_count from chain_cursor) as highest_block_count,
           (select count(*)::int from sync_runs where id > coalesce(ok.id, 0)) as held_back_passes_in_a_row,
           (select count(*)::int from sync_runs where state <> 'ok') as held_back_passes_total,
           a.hour as last_accrual_hour, a.finished_at as last_accrual_at
    from (select 1) as one
    left join (
      select state, reason, finished_at, block_height, items_checked, owners_changed, stakes_ended, errors
      from sync_runs order by id desc limit 1
    ) s on true
    left join (select id, finished_at from sync_runs where state = 'ok' order by id desc limit 1) ok on true
    left join (select hour, finished_at from accrual_runs order by hour desc limit 1) a on true`;
  return row;
}
