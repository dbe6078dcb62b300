/** What /api/health reports about the indexer, read from the tables it writes. */
import type { Queryable } from "../client.server.ts";

/** The last sync pass (time, height, items checked, owners changed, stakes ended, errors) and credited hour. */
export type IndexerHealth = {
  lastSyncAt: Date | null;
  lastSyncBlockHeight: number | null;
  lastSyncItemsChecked: number | null;
  lastSyncOwnersChanged: number | null;
  lastSyncStakesEnded: number | null;
  lastSyncErrors: number | null;
  lastAccrualHour: Date | null;
  lastAccrualAt: Date | null;
};

export async function indexerHealth(sql: Queryable): Promise<IndexerHealth> {
  const [row] = await sql<IndexerHealth[]>`
    select s.finished_at as last_sync_at, s.block_height as last_sync_block_height,
           s.items_checked as last_sync_items_checked, s.owners_changed as last_sync_owners_changed,
           s.stakes_ended as last_sync_stakes_ended, s.errors as last_sync_errors,
           a.hour as last_accrual_hour, a.finished_at as last_accrual_at
    from (select 1) as one
    left join (
      select finished_at, block_height, items_checked, owners_changed, stakes_ended, errors
      from sync_runs order by finished_at desc, id desc limit 1
    ) s on true
    left join (select hour, finished_at from accrual_runs order by hour desc limit 1) a on true`;
  return row;
}
