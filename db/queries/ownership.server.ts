/** Ownership as the indexer sees it: current owners, transfers, stakes ended by a transfer, sync passes. */
import type { Queryable, Sql } from "../client.server.ts";

export type SyncSource = "scheduled" | "cli" | "startup";

export type KnownOwner = { itemId: number; inscriptionId: string; ownerAddress: string | null };

export type OwnerChange = { itemId: number; address: string; satpoint: string; blockHeight: number | null; at: Date };

export type AppliedChange = { changed: false } | { changed: true; from: string | null; stakesEnded: number };

export type SyncRun = {
  source: SyncSource;
  startedAt: Date;
  finishedAt: Date;
  blockHeight: number | null;
  itemsChecked: number;
  ownersChanged: number;
  stakesEnded: number;
  errors: number;
};

/** Every catalogue item with the owner last seen (null when never seen). */
export async function knownOwners(sql: Queryable): Promise<KnownOwner[]> {
  return sql<KnownOwner[]>`
    select i.id as item_id, i.inscription_id, o.owner_address
    from items i left join ownership o on o.item_id = i.id
    order by i.id`;
}

/**
 * Records a new owner in one transaction: the ownership row, a transfer row, and the end of an open
 * stake held by anyone else. Compare-and-set on the current owner under its row lock (`on conflict … where`
 * sees the latest committed row), so two syncs applying the same change at once record it once.
 */
export async function applyOwnerChange(sql: Sql, change: OwnerChange): Promise<AppliedChange> {
  const { itemId, address, satpoint, blockHeight, at } = change;
  return sql.begin(async (tx) => {
    // The chain can always tell this again: a change lost to a crash before it reached the disk is simply
    // seen again on the next pass. Not waiting for the flush makes a first sync of thousands of items
    // several times faster; the transaction stays atomic.
    // Pipelined: the row lock comes first, so the statement's snapshot sees the latest committed owner.
    const [, , [row]] = await Promise.all([
      tx`set local synchronous_commit = off`,
      tx`select 1 from ownership where item_id = ${itemId} for update`,
      tx<{ changed: boolean; fromAddress: string | null; stakesEnded: number }[]>`
        with previous as (
          select owner_address from ownership where item_id = ${itemId}
        ), recorded as (
          insert into ownership as o (item_id, owner_address, satpoint, block_height, seen_at)
          values (${itemId}, ${address}, ${satpoint}, ${blockHeight}, ${at})
          on conflict (item_id) do update
            set owner_address = excluded.owner_address, satpoint = excluded.satpoint,
                block_height = excluded.block_height, seen_at = excluded.seen_at
            where o.owner_address <> excluded.owner_address
          returning item_id
        ), transfer as (
          insert into transfers (item_id, from_address, to_address, satpoint, block_height, seen_at)
          select item_id, (select owner_address from previous), ${address}, ${satpoint}, ${blockHeight}, ${at}
          from recorded
        ), ended as (
          update stakes set ended_at = greatest(${at}::timestamptz, started_at), end_reason = 'transferred'
          where item_id = ${itemId} and ended_at is null and address <> ${address} and exists (select 1 from recorded)
          returning id
        )
        select exists (select 1 from recorded) as changed,
               (select owner_address from previous) as from_address,
               (select count(*)::int from ended) as stakes_ended`,
    ]);
    return row.changed ? { changed: true, from: row.fromAddress, stakesEnded: row.stakesEnded } : { changed: false };
  });
}

export type FirstSighting = { itemId: number; address: string; satpoint: string };

/**
 * Records owners of items never seen before (no previous owner, so no stake to end), many per statement:
 * ownership rows and their transfer rows from nobody. An item another pass recorded meanwhile is left
 * alone. Returns how many were recorded.
 */
export async function recordFirstOwners(
  sql: Sql,
  sightings: readonly FirstSighting[],
  blockHeight: number | null,
  at: Date,
): Promise<number> {
  if (sightings.length === 0) return 0;
  return sql.begin(async (tx) => {
    const [, rows] = await Promise.all([
      tx`set local synchronous_commit = off`,
      tx`
        with recorded as (
          insert into ownership (item_id, owner_address, satpoint, block_height, seen_at)
          select item_id, owner_address, satpoint, ${blockHeight}::int, ${at}::timestamptz
          from unnest(${sightings.map((s) => s.itemId)}::int[], ${sightings.map((s) => s.address)}::text[],
                      ${sightings.map((s) => s.satpoint)}::text[]) as s(item_id, owner_address, satpoint)
          on conflict (item_id) do nothing
          returning item_id, owner_address, satpoint
        )
        insert into transfers (item_id, from_address, to_address, satpoint, block_height, seen_at)
        select item_id, null, owner_address, satpoint, ${blockHeight}::int, ${at}::timestamptz from recorded
        returning item_id`,
    ]);
    return rows.length;
  });
}

/**
 * Ends (reason 'transferred') every open stake whose staker is not the item's known owner: the sweep at
 * the end of a sync pass, which also catches a stake that raced a transfer. Returns how many ended.
 */
export async function endForeignStakes(sql: Queryable, at: Date): Promise<number> {
  const rows = await sql`
    update stakes s
    set ended_at = greatest(${at}::timestamptz, s.started_at), end_reason = 'transferred'
    from ownership o
    where o.item_id = s.item_id and s.ended_at is null and s.address <> o.owner_address
    returning s.id`;
  return rows.length;
}

export async function recordSyncRun(sql: Queryable, run: SyncRun): Promise<void> {
  await sql`
    insert into sync_runs (source, started_at, finished_at, block_height, items_checked, owners_changed, stakes_ended, errors)
    values (${run.source}, ${run.startedAt}, ${run.finishedAt}, ${run.blockHeight}, ${run.itemsChecked},
            ${run.ownersChanged}, ${run.stakesEnded}, ${run.errors})`;
}

export async function lastSyncRun(sql: Queryable): Promise<SyncRun | null> {
  const [row] = await sql<SyncRun[]>`
    select source, started_at, finished_at, block_height, items_checked, owners_changed, stakes_ended, errors
    from sync_runs order by id desc limit 1`;
  return row ?? null;
}
