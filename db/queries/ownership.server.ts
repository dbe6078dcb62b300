/**
 * Ownership as the indexer sees it: current holders (a P2PKH wallet, a P2SH or witness address, or an
 * address-less output), every move seen, stakes ended by a move (and reopened when a reorg undoes that
 * move), the highest block count seen, and sync passes.
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { redactUrlsIn } from "../../app/domain/redact.ts";
import type { Queryable, Sql } from "../client.server.ts";
import { auditStakesEndedByTransfer } from "./audit.server.ts";
import { notifyStakesEndedByTransfer } from "./notifications.server.ts";

export type SyncSource = "scheduled" | "cli" | "startup";

/** Where an item sits: only a `p2pkh` holder is a wallet that can sign, stake and earn. */
export type OwnerKind = "p2pkh" | "p2sh" | "witness" | "none";

/** A pass applied what it read (`ok`) or was held back, changing nothing (the others). */
export type SyncState = "ok" | "rewinding" | "stalled" | "unavailable";

export type Holder = { address: string | null; kind: OwnerKind };

/** Every catalogue item with where it was last seen; `seen` is false for an item never read yet. */
export type KnownOwner = {
  itemId: number;
  inscriptionId: string;
  seen: boolean;
  ownerAddress: string | null;
  ownerKind: OwnerKind | null;
  satpoint: string | null;
};

export type Move = Holder & { itemId: number; satpoint: string; blockHeight: number | null; at: Date };

/**
 * `returned`: the item is back at a satpoint it had left, which only a reorg undoing the move away can do;
 * `stakesReopened`: the stake that move had ended, continued (see `reopenUndoneStake`).
 */
export type AppliedMove =
  { moved: false } | { moved: true; ownerChanged: boolean; from: Holder; stakesEnded: number; returned: boolean; stakesReopened: number };

export type SyncRun = {
  source: SyncSource;
  startedAt: Date;
  finishedAt: Date;
  state: SyncState;
  /** Why a pass was held back; null when it applied what it read. */
  reason: string | null;
  /** The last height the ord server had indexed (its block count − 1), or null when it did not answer. */
  blockHeight: number | null;
  itemsChecked: number;
  ownersChanged: number;
  stakesEnded: number;
  errors: number;
};

export async function knownOwners(sql: Queryable): Promise<KnownOwner[]> {
  return sql<KnownOwner[]>`
    select i.id as item_id, i.inscription_id, o.item_id is not null as seen,
           o.owner_address, o.owner_kind, o.satpoint
    from items i left join ownership o on o.item_id = i.id
    order by i.id`;
}

/**
 * Records a move in one transaction: the ownership row, a transfer row, and, when the holder changed, the
 * end of an open stake held by anyone but a P2PKH new owner; when the move is a return (a reorg undid the
 * move away), the stake that move ended is continued. Compare-and-set on the current position under its
 * row lock (`on conflict … where` sees the latest committed row), so two syncs applying the same move at
 * once record it once.
 */
export async function applyMove(sql: Sql, move: Move): Promise<AppliedMove> {
  const { itemId, address, kind, satpoint, blockHeight, at } = move;
  return sql.begin(async (tx) => {
    // The chain can always tell this again: a move lost to a crash before it reached the disk is simply
    // seen again on the next pass. Not waiting for the flush makes a first sync of thousands of items
    // several times faster; the transaction stays atomic.
    // Pipelined: the row lock comes first, so the statement's snapshot sees the latest committed position.
    const [, , [row]] = await Promise.all([
      tx`set local synchronous_commit = off`,
      tx`select 1 from ownership where item_id = ${itemId} for update`,
      tx<{ moved: boolean; fromAddress: string | null; fromKind: OwnerKind | null; stakesEnded: number }[]>`
        with previous as (
          select owner_address, owner_kind from ownership where item_id = ${itemId}
        ), recorded as (
          insert into ownership as o (item_id, owner_address, owner_kind, satpoint, block_height, seen_at)
          values (${itemId}, ${address}, ${kind}, ${satpoint}, ${blockHeight}, ${at})
          on conflict (item_id) do update
            set owner_address = excluded.owner_address, owner_kind = excluded.owner_kind, satpoint = excluded.satpoint,
                block_height = excluded.block_height, seen_at = excluded.seen_at
            where (o.owner_address, o.owner_kind, o.satpoint) is distinct from
                  (excluded.owner_address, excluded.owner_kind, excluded.satpoint)
          returning item_id
        ), transfer as (
          insert into transfers (item_id, from_address, to_address, to_kind, satpoint, block_height, seen_at)
          select item_id, (select owner_address from previous), ${address}, ${kind}, ${satpoint}, ${blockHeight}, ${at}
          from recorded
        ), ended as (
          update stakes set ended_at = greatest(${at}::timestamptz, started_at), end_reason = 'transferred'
          where item_id = ${itemId} and ended_at is null and exists (select 1 from recorded)
            and (${kind} <> 'p2pkh' or address is distinct from ${address}::text)
          returning id, address, item_id, started_at, ended_at, ${address}::text as holder, ${kind}::text as holder_kind
        ), audited as (
          ${auditStakesEndedByTransfer(tx, at)}
        ), notified as (
          ${notifyStakesEndedByTransfer(tx, at)}
        )
        select exists (select 1 from recorded) as moved,
               (select owner_address from previous) as from_address,
               (select owner_kind from previous) as from_kind,
               (select count(*)::int from ended) as stakes_ended`,
    ]);
    if (!row.moved) return { moved: false };
    const ownerChanged = row.fromAddress !== address || row.fromKind !== kind;
    const { returned, stakesReopened } = await reopenUndoneStake(tx, move);
    return {
      moved: true,
      ownerChanged,
      from: { address: row.fromAddress, kind: row.fromKind ?? "none" },
      stakesEnded: row.stakesEnded,
      returned,
      stakesReopened,
    };
  });
}

/**
 * After a move just recorded: is the item back at a satpoint it had left (an output, once spent, never
 * holds it again on one chain, so only a reorg that undid the move away does this)? If so, and that move
 * ended the stake of the holder it returns to (their last stake on the item ended `transferred` when or
 * after the item left them), a new stake continues it from `at`, linked by `reopened_from`. It starts now,
 * not back then: hours already credited stay as they are (the ledger is append-only), and whoever held the
 * item in between keeps the stake history that voting-power snapshots read.
 */
async function reopenUndoneStake(tx: Queryable, move: Move): Promise<{ returned: boolean; stakesReopened: number }> {
  const { itemId, address, kind, satpoint, at } = move;
  const [row] = await tx<{ returned: boolean; stakesReopened: number }[]>`
    with arrived as (
      select max(id) as id from transfers where item_id = ${itemId}
    ), left_it as (
      select later.seen_at as left_at
      from transfers earlier
      join lateral (
        select t.seen_at from transfers t where t.item_id = earlier.item_id and t.id > earlier.id order by t.id limit 1
      ) later on true
      where earlier.item_id = ${itemId} and earlier.satpoint = ${satpoint} and earlier.id < (select id from arrived)
      order by earlier.id desc limit 1
    ), last_stake as (
      select id, end_reason, ended_at from stakes where item_id = ${itemId} and address = ${address}::text order by id desc limit 1
    ), reopened as (
      insert into stakes (item_id, address, started_at, reopened_from)
      select ${itemId}, ${address}, ${at}, s.id from last_stake s, left_it l
      where ${kind} = 'p2pkh' and s.end_reason = 'transferred' and s.ended_at >= l.left_at
      on conflict (item_id) where ended_at is null do nothing
      returning id, address, reopened_from, started_at
    ), audited as (
      insert into audit_log (actor, action, target, details, before, after, created_at)
      select 'system', 'stake.reopened', r.address,
             jsonb_build_object('stakeId', r.id, 'reopenedFrom', r.reopened_from, 'item', i.name, 'inscriptionId', i.inscription_id),
             jsonb_build_object('staked', false), jsonb_build_object('staked', true, 'since', ${at.toISOString()}::text), ${at}::timestamptz
      from reopened r join items i on i.id = ${itemId}
    )
    select exists (select 1 from left_it) as returned, (select count(*)::int from reopened) as stakes_reopened`;
  return row;
}

export type FirstSighting = Holder & { itemId: number; satpoint: string };

/**
 * Records where items never seen before are (no previous holder, so no stake to end), many per statement:
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
          insert into ownership (item_id, owner_address, owner_kind, satpoint, block_height, seen_at)
          select item_id, owner_address, owner_kind, satpoint, ${blockHeight}::int, ${at}::timestamptz
          from unnest(${sightings.map((s) => s.itemId)}::int[], ${sightings.map((s) => s.address)}::text[],
                      ${sightings.map((s) => s.kind)}::text[], ${sightings.map((s) => s.satpoint)}::text[])
               as s(item_id, owner_address, owner_kind, satpoint)
          on conflict (item_id) do nothing
          returning item_id, owner_address, owner_kind, satpoint
        )
        insert into transfers (item_id, from_address, to_address, to_kind, satpoint, block_height, seen_at)
        select item_id, null, owner_address, owner_kind, satpoint, ${blockHeight}::int, ${at}::timestamptz from recorded
        returning item_id`,
    ]);
    return rows.length;
  });
}

/**
 * Ends (reason 'transferred') every open stake whose staker is not the item's known P2PKH owner: the sweep
 * at the end of a sync pass, which also catches a stake that raced a move. Returns how many ended.
 */
export async function endForeignStakes(sql: Queryable, at: Date): Promise<number> {
  const rows = await sql`
    with ended as (
      update stakes s
      set ended_at = greatest(${at}::timestamptz, s.started_at), end_reason = 'transferred'
      from ownership o
      where o.item_id = s.item_id and s.ended_at is null
        and (o.owner_kind <> 'p2pkh' or s.address is distinct from o.owner_address)
      returning s.id, s.address, s.item_id, s.started_at, s.ended_at, o.owner_address as holder, o.owner_kind as holder_kind
    ), audited as (
      ${auditStakesEndedByTransfer(sql, at)}
    ), notified as (
      ${notifyStakesEndedByTransfer(sql, at)}
    )
    select id from ended`;
  return rows.length;
}

/** The highest block count any pass has seen, or null before the first. */
export async function highestBlockCount(sql: Queryable): Promise<number | null> {
  return (await chainCursor(sql))?.highestBlockCount ?? null;
}

/** The highest block count an applied pass has seen and when it last rose; null before the first. */
export async function chainCursor(sql: Queryable): Promise<{ highestBlockCount: number; advancedAt: Date } | null> {
  const [row] = await sql<{ highestBlockCount: number; advancedAt: Date }[]>`select highest_block_count, advanced_at from chain_cursor`;
  return row ?? null;
}

/**
 * Records a pass; an applied one raises the highest block count seen to `blockCount` (the count its closing
 * check read).
 */
export async function recordSyncRun(sql: Sql, run: SyncRun, blockCount: number | null): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      insert into sync_runs (source, started_at, finished_at, state, reason, block_height, items_checked, owners_changed, stakes_ended, errors)
      values (${run.source}, ${run.startedAt}, ${run.finishedAt}, ${run.state}, ${run.reason && withoutControlCharacters(redactUrlsIn(run.reason))}, ${run.blockHeight},
              ${run.itemsChecked}, ${run.ownersChanged}, ${run.stakesEnded}, ${run.errors})`;
    if (run.state === "ok" && blockCount !== null && blockCount > 0) {
      await tx`
        insert into chain_cursor as c (highest_block_count, updated_at, advanced_at) values (${blockCount}, ${run.finishedAt}, ${run.finishedAt})
        on conflict (id) do update
          set highest_block_count = greatest(c.highest_block_count, excluded.highest_block_count), updated_at = excluded.updated_at,
              advanced_at = case when excluded.highest_block_count > c.highest_block_count then excluded.advanced_at else c.advanced_at end`;
    }
  });
}

export async function lastSyncRun(sql: Queryable): Promise<SyncRun | null> {
  const [row] = await sql<SyncRun[]>`
    select source, started_at, finished_at, state, reason, block_height, items_checked, owners_changed, stakes_ended, errors
    from sync_runs order by id desc limit 1`;
  return row ?? null;
}

/** Held-back passes in a row since the last applied one, and in all. */
export async function heldBackPasses(sql: Queryable): Promise<{ inARow: number; total: number }> {
  const [row] = await sql<{ inARow: number; total: number }[]>`
    select (select count(*)::int from sync_runs
            where id > coalesce((select max(id) from sync_runs where state = 'ok'), 0)) as in_a_row,
           (select count(*)::int from sync_runs where state <> 'ok') as total`;
  return row;
}
