/**
 * Soft staking: only the current owner (per the indexer's `ownership`) stakes an item. Single and bulk
 * calls share one set-based path, applied in one transaction: all or nothing.
 */
import { now } from "../../app/domain/clock.ts";
import { forbidden, notFound } from "../../app/domain/errors.ts";
import type { StakeAction } from "../../app/domain/messages.ts";
import type { Queryable, TransactionSql } from "../client.server.ts";
import { auditStakesEndedByTransfer } from "./audit.server.ts";
import { itemsByInscriptionIds, type ItemRow } from "./catalogue.server.ts";
import { notifyStakesEndedByTransfer } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type StakeTarget = Pick<ItemRow, "id" | "name">;

/** `count`: items changed; `alreadyStaked`: items already in the asked state (skipped). */
export type StakeResult = { count: number; alreadyStaked: number };

/** The catalogue items for these inscription ids, in the order given; 404 naming the first unknown one. */
export async function findItems(sql: Queryable, inscriptionIds: readonly string[]): Promise<ItemRow[]> {
  const wanted = inscriptionIds.map((id) => id.trim().toLowerCase());
  const found = new Map((await itemsByInscriptionIds(sql, wanted)).map((item) => [item.inscriptionId, item]));
  return wanted.map((id) => {
    const item = found.get(id);
    if (!item) throw notFound(`Unknown inscription ${id}`);
    return item;
  });
}

/** Items held by a P2PKH wallet, with that wallet: an item at a P2SH address or an address-less output has no staker. */
async function ownersOf(tx: TransactionSql, itemIds: number[]): Promise<Map<number, string>> {
  // Share locks: the indexer cannot move an item while we stake it.
  const rows = await tx<{ itemId: number; ownerAddress: string }[]>`
    select item_id, owner_address from ownership
    where item_id = any(${itemIds}::int[]) and owner_kind = 'p2pkh' order by item_id for share`;
  return new Map(rows.map((row) => [row.itemId, row.ownerAddress]));
}

async function openStakesOf(tx: TransactionSql, itemIds: number[]): Promise<Map<number, { id: number; address: string }>> {
  const rows = await tx<{ id: number; itemId: number; address: string }[]>`
    select id, item_id, address from stakes
    where item_id = any(${itemIds}::int[]) and ended_at is null order by item_id for update`;
  return new Map(rows.map((row) => [row.itemId, { id: row.id, address: row.address }]));
}

async function stake(tx: TransactionSql, address: string, items: readonly StakeTarget[]): Promise<StakeResult> {
  const itemIds = items.map((item) => item.id);
  const owners = await ownersOf(tx, itemIds);
  const notMine = items.find((item) => owners.get(item.id) !== address);
  if (notMine) throw forbidden(`${notMine.name} is not owned by ${address}`);
  const open = await openStakesOf(tx, itemIds);
  // A stake left open by a previous owner (the indexer has not closed it yet) ends here: the item moved.
  const stale = [...open.values()].filter((stakeRow) => stakeRow.address !== address).map((stakeRow) => stakeRow.id);
  const at = now();
  if (stale.length) {
    await tx`
      with ended as (
        update stakes set ended_at = ${at}, end_reason = 'transferred' where id = any(${stale}::int8[])
        returning id, address, item_id, started_at, ended_at, ${address}::text as holder, 'p2pkh'::text as holder_kind
      ), notified as (
        ${notifyStakesEndedByTransfer(tx, at)}
      )
      ${auditStakesEndedByTransfer(tx, at)}`;
  }
  const toStake = itemIds.filter((id) => open.get(id)?.address !== address);
  const inserted = toStake.length
    ? await tx`
        insert into stakes (item_id, address, started_at)
        select item_id, ${address}, ${at} from unnest(${toStake}::int[]) as t(item_id)
        on conflict (item_id) where ended_at is null do nothing
        returning id`
    : [];
  return { count: inserted.length, alreadyStaked: items.length - inserted.length };
}

async function unstake(tx: TransactionSql, address: string, items: readonly StakeTarget[]): Promise<StakeResult> {
  const itemIds = items.map((item) => item.id);
  const owners = await ownersOf(tx, itemIds);
  const open = await openStakesOf(tx, itemIds);
  const toEnd: number[] = [];
  for (const item of items) {
    const openStake = open.get(item.id);
    if (openStake?.address === address) toEnd.push(openStake.id);
    else if (owners.get(item.id) !== address) throw forbidden(`${item.name} is not owned by ${address}`);
  }
  if (toEnd.length) {
    await tx`update stakes set ended_at = ${now()}, end_reason = 'unstaked' where id = any(${toEnd}::int8[])`;
  }
  return { count: toEnd.length, alreadyStaked: items.length - toEnd.length };
}

/** Stakes or unstakes the items for `address` in one transaction (the caller's, when it holds one). */
export async function applyStakeAction(
  sql: Queryable,
  action: StakeAction,
  address: string,
  items: readonly StakeTarget[],
): Promise<StakeResult> {
  return inTransaction(sql, (tx) => (action === "stake" ? stake(tx, address, items) : unstake(tx, address, items)));
}

export const stakeItems = (sql: Queryable, address: string, items: readonly StakeTarget[]) =>
  applyStakeAction(sql, "stake", address, items);
export const unstakeItems = (sql: Queryable, address: string, items: readonly StakeTarget[]) =>
  applyStakeAction(sql, "unstake", address, items);
