/**
 * Points: an append-only ledger in integer units (1 point = 2,400 units). A balance is `wallet_balances`:
 * the `balances` row a trigger keeps in step with every row but the accrual's, plus the accrual the basis has
 * credited since (db/queries/accrual-basis.server.ts). Every admin change writes its ledger row and its
 * audit row in one transaction.
 */
import { isDogecoinAddress } from "../../app/domain/address.ts";
import { now } from "../../app/domain/clock.ts";
import { badRequest } from "../../app/domain/errors.ts";
import type { LedgerKind } from "../../app/domain/points-history.ts";
import { pointsToUnits, unitsToPoints } from "../../app/domain/rewards.ts";
import { addPointsSchema, clearReasonSchema, DEFAULT_CLEAR_DESCRIPTION, MESSAGES } from "../../app/domain/validation.ts";
import type { Queryable, TransactionSql } from "../client.server.ts";
import { dailyRatesOf } from "./holdings.server.ts";
import { foldAllBalances, lockBasis } from "./accrual-basis.server.ts";
import { actorLabel, recordAudit, type Actor } from "./audit.server.ts";
import { parseOrRefuse } from "./input.server.ts";
import { notify, pointsAdjusted } from "./notifications.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type { LedgerKind };

export type LedgerInsert = {
  address: string;
  kind: LedgerKind;
  units: number;
  description?: string | null;
  reference?: string | null;
  /** A giveaway entry or refund names its giveaway (title as it is now) and tickets. */
  giveaway?: { id: number; title: string; tickets: number };
  actor: Actor;
};

export type UserRow = { address: string; totalPoints: number; stakedCount: number; dailyRate: number };

export type AddPointsInput = { address: string; points: number; description?: string | null; actor: Actor };

function requireAddress(address: string): void {
  if (!isDogecoinAddress(address)) throw badRequest(MESSAGES.invalidAddress);
}

/** Appends ledger rows (never accrual: the indexer owns those). The trigger updates `balances`. */
export async function appendLedger(sql: Queryable, rows: readonly LedgerInsert[]): Promise<{ id: number; address: string }[]> {
  if (rows.length === 0) return [];
  const at = now();
  const values = rows.map((row) => ({
    address: row.address,
    kind: row.kind,
    amount: row.units,
    reference: row.reference ?? null,
    description: row.description ?? null,
    giveawayId: row.giveaway?.id ?? null,
    giveawayTitle: row.giveaway?.title ?? null,
    tickets: row.giveaway?.tickets ?? null,
    actor: actorLabel(row.actor),
    createdAt: at,
  }));
  const inserted = await sql`insert into points_ledger ${sql(
    values,
    "address",
    "kind",
    "amount",
    "reference",
    "description",
    "giveawayId",
    "giveawayTitle",
    "tickets",
    "actor",
    "createdAt",
  )} returning id, address`;
  return inserted.map((row) => ({ id: Number(row.id), address: String(row.address) }));
}

export async function getBalanceUnits(sql: Queryable, address: string): Promise<number> {
  const [row] = await sql<{ units: number }[]>`select units from wallet_balances where address = ${address}`;
  return row?.units ?? 0;
}

/**
 * Locks the wallet's balance row for the rest of the transaction (creating it at 0 when missing), so
 * checks against it and the spend that follows cannot interleave with another spend.
 */
export async function lockBalanceUnits(tx: TransactionSql, address: string): Promise<number> {
  await tx`
    insert into balances (address, units, updated_at) values (${address}, 0, ${now()})
    on conflict (address) do nothing`;
  const [row] = await tx<{ units: number }[]>`
    select w.units from balances b join wallet_balances w using (address) where b.address = ${address} for update of b`;
  return row.units;
}

/**
 * Adds points (at most 2 decimals) to a wallet; answers its new balance in points. The amount follows the
 * same rules (addPointsSchema) as the admin form and the CLI that call it.
 */
export async function addPoints(sql: Queryable, input: AddPointsInput): Promise<{ address: string; totalPoints: number }> {
  const {
    address,
    amount: points,
    description,
  } = parseOrRefuse(addPointsSchema, {
    address: input.address,
    amount: input.points,
    description: input.description ?? undefined,
  });
  const units = pointsToUnits(points);
  return inTransaction(sql, async (tx) => {
    const before = await lockBalanceUnits(tx, address);
    const [ledger] = await appendLedger(tx, [{ address, kind: "admin_add", units, description, actor: input.actor }]);
    const totalPoints = unitsToPoints(await getBalanceUnits(tx, address));
    await notify(tx, [pointsAdjusted({ ledgerId: ledger.id, address, points, description, balance: totalPoints })]);
    await recordAudit(
      tx,
      input.actor,
      "points.add",
      address,
      { points, description },
      { before: { points: unitsToPoints(before) }, after: { points: totalPoints } },
    );
    return { address, totalPoints };
  });
}

/** Brings a wallet's balance to 0 with one ledger row; answers the points removed (0 when already 0). */
export async function clearPoints(
  sql: Queryable,
  { address, actor, reason }: { address: string; actor: Actor; reason?: string | null },
): Promise<{ address: string; clearedPoints: number }> {
  requireAddress(address);
  const why = parseOrRefuse(clearReasonSchema, reason ?? undefined) ?? null;
  return inTransaction(sql, async (tx) => {
    const units = await lockBalanceUnits(tx, address);
    const description = why ?? DEFAULT_CLEAR_DESCRIPTION;
    if (units !== 0) {
      const [ledger] = await appendLedger(tx, [{ address, kind: "admin_clear", units: -units, description, actor }]);
      await notify(tx, [pointsAdjusted({ ledgerId: ledger.id, address, points: -unitsToPoints(units), description, balance: 0 })]);
    }
    const change = { before: { points: unitsToPoints(units) }, after: { points: 0 } };
    await recordAudit(tx, actor, "points.clear", address, { clearedPoints: unitsToPoints(units), reason: why }, change);
    return { address, clearedPoints: unitsToPoints(units) };
  });
}

const RECALCULATE_CHUNK = 5000;

/** The most wallets an audit row of a repair lists by name; beyond, it counts them. */
const AUDIT_LISTED_WALLETS = 1000;

/** before → after of the balances a repair changed (points by address), listing at most AUDIT_LISTED_WALLETS. */
function balancesChange(rows: readonly { address: string; before: number; after: number }[]) {
  const listed = rows.slice(0, AUDIT_LISTED_WALLETS);
  const points = (pick: "before" | "after") => Object.fromEntries(listed.map((row) => [row.address, unitsToPoints(row[pick])]));
  const unlisted = rows.length - listed.length;
  return {
    before: { balances: points("before"), ...(unlisted ? { unlisted } : {}) },
    after: { balances: points("after"), ...(unlisted ? { unlisted } : {}) },
  };
}

/**
 * Rebuilds every cached balance from the ledger (the ledger is the truth). Runs in one transaction with
 * `balances` and the accrual's basis locked, so no spend and no hour can slip between the sum and the write.
 */
export async function recalculateAllPoints(
  sql: Queryable,
  actor: Actor,
  onProgress?: (done: number, total: number) => void,
): Promise<{ addressesProcessed: number; corrected: number }> {
  return inTransaction(sql, async (tx) => {
    // No accrual meanwhile, and every balance whole in its row (the basis's unfolded hours folded in).
    await lockBasis(tx);
    await tx`lock table balances in share row exclusive mode`;
    await foldAllBalances(tx, now());
    const addresses = (
      await tx<{ address: string }[]>`
        select address from balances union select distinct address from points_ledger order by 1`
    ).map((row) => row.address);
    const changed: { address: string; before: number; after: number }[] = [];
    const at = now();
    for (let start = 0; start < addresses.length; start += RECALCULATE_CHUNK) {
      const chunk = addresses.slice(start, start + RECALCULATE_CHUNK);
      const rows = await tx<{ address: string; before: number | null; after: number }[]>`
        with old as (
          select address, units from balances where address = any(${chunk}::text[])
        ), sums as (
          select a.address, coalesce(sum(l.amount), 0)::int8 as units
          from unnest(${chunk}::text[]) as a(address)
          left join points_ledger l on l.address = a.address
          group by a.address
        )
        insert into balances as b (address, units, updated_at)
          select address, units, ${at} from sums
        on conflict (address) do update set units = excluded.units, updated_at = excluded.updated_at
          where b.units <> excluded.units
        returning b.address, (select old.units from old where old.address = b.address) as before, b.units as after`;
      changed.push(...rows.map((row) => ({ address: row.address, before: row.before ?? 0, after: row.after })));
      onProgress?.(Math.min(start + RECALCULATE_CHUNK, addresses.length), addresses.length);
    }
    const corrected = changed.length;
    await recordAudit(tx, actor, "points.recalculate", null, { addressesProcessed: addresses.length, corrected }, balancesChange(changed));
    return { addressesProcessed: addresses.length, corrected };
  });
}

/** Adds a ledger adjustment bringing each negative balance to 0; answers how many were adjusted. */
export async function resetNegativeBalances(sql: Queryable, actor: Actor): Promise<{ adjustmentsApplied: number }> {
  return inTransaction(sql, async (tx) => {
    await lockBasis(tx); // no hour credited between reading a balance and bringing it to 0
    const negatives = await tx<{ address: string; units: number }[]>`
      select b.address, w.units from balances b join wallet_balances w using (address)
      where w.units < 0 order by b.address for update of b`;
    const description = "Negative balance reset to 0";
    const written = await appendLedger(
      tx,
      negatives.map((row) => ({ address: row.address, kind: "negative_reset" as const, units: -row.units, description, actor })),
    );
    await notify(
      tx,
      written.map((ledger) => {
        const points = unitsToPoints(-negatives.find((row) => row.address === ledger.address)!.units);
        return pointsAdjusted({ ledgerId: ledger.id, address: ledger.address, points, description, balance: 0 });
      }),
    );
    const change = balancesChange(negatives.map((row) => ({ address: row.address, before: row.units, after: 0 })));
    await recordAudit(tx, actor, "points.reset-negative", null, { adjustmentsApplied: negatives.length }, change);
    return { adjustmentsApplied: negatives.length };
  });
}

/**
 * Wallets with a balance or an open stake, highest balance first. `search` is a case-insensitive
 * "contains" on the address.
 */
export async function listUsers(
  sql: Queryable,
  { search = "", limit = 1000 }: { search?: string; limit?: number } = {},
): Promise<UserRow[]> {
  const needle = search.trim().toLowerCase();
  const rows = await sql<{ address: string; units: number; stakedCount: number }[]>`
    with staked as (
      select address, count(*)::int as staked_count from stakes where ended_at is null group by address
    ), users as (
      select address from balances union select address from staked
    )
    select u.address, coalesce(b.units, 0)::int8 as units, coalesce(s.staked_count, 0) as staked_count
    from users u
    left join wallet_balances b on b.address = u.address
    left join staked s on s.address = u.address
    where ${needle} = '' or strpos(lower(u.address), ${needle}) > 0
    order by units desc, u.address
    limit ${limit}`;
  const rates = await dailyRatesOf(
    sql,
    rows.map((row) => row.address),
  );
  return rows.map((row) => ({
    address: row.address,
    totalPoints: unitsToPoints(row.units),
    stakedCount: row.stakedCount,
    dailyRate: rates.get(row.address) ?? 0,
  }));
}
