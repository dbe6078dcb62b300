/** Helpers for the indexer's tests and benchmark (not shipped to the browser, not a test file). */
import { sha256 } from "@noble/hashes/sha2.js";
import { HOUR_MS, setClock } from "../app/domain/clock.ts";
import { addressOfPrivateKey } from "../app/domain/signature.ts";
import type { Config } from "../app/utils/env.server.ts";
import type { Queryable, Sql } from "../db/client.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";

export const T0 = Date.UTC(2031, 0, 1, 0, 0, 0);
export const at = (hours: number, minutes = 0) => new Date(T0 + hours * HOUR_MS + minutes * 60_000);

/** A valid Dogecoin address derived from a label. */
export function testAddress(label: string): string {
  return addressOfPrivateKey(sha256(new TextEncoder().encode(`spooks-test:${label}`)));
}

export function indexerConfig(overrides: Partial<Config["indexer"]> = {}): Pick<Config, "indexer"> {
  return {
    indexer: {
      syncCron: "* * * * *",
      accrualCron: "0 * * * *",
      concurrency: 16,
      timeoutMs: 2000,
      validateTimeoutMs: 4000,
      retries: 0,
      catchUpHours: 72,
      chain: "mainnet",
      maxBodyBytes: 16 * 1024 * 1024,
      ...overrides,
    },
  };
}

export type SeededItem = { id: number; inscriptionId: string; collection: string };

/** Imports the first `count` demo catalogue items (idempotent) and returns them with their ids. */
export async function seedItems(sql: Sql, count: number): Promise<SeededItem[]> {
  const catalogue = demoCatalogue().slice(0, count);
  await importCatalogue(sql, catalogue);
  return sql<SeededItem[]>`
    select id, inscription_id, collection from items
    where inscription_id = any(${catalogue.map((item) => item.inscriptionId)}) order by id`;
}

export async function openStake(sql: Queryable, itemId: number, address: string, startedAt: Date): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    insert into stakes (item_id, address, started_at) values (${itemId}, ${address}, ${startedAt}) returning id`;
  return row.id;
}

/** Clears everything the indexer writes except the append-only ledger (tests use fresh addresses). */
export async function resetIndexerState(sql: Sql): Promise<void> {
  await sql`delete from stakes`;
  await sql`delete from accrual_runs`;
  await sql`delete from transfers`;
  await sql`delete from ownership`;
  await sql`delete from sync_runs`;
  await sql`delete from chain_cursor`;
}

export async function unitsOf(sql: Queryable, address: string): Promise<number> {
  const [row] = await sql<{ units: number }[]>`
    select coalesce(sum(amount), 0)::bigint as units from points_ledger where address = ${address}`;
  return row.units;
}

export async function balanceOf(sql: Queryable, address: string): Promise<number> {
  const [row] = await sql<{ units: number }[]>`select units from wallet_balances where address = ${address}`;
  return row?.units ?? 0;
}

/** A settable test clock; returns { set, restore }. */
export function testClock(start: Date) {
  let current = start.getTime();
  const restore = setClock(() => current);
  return { set: (next: Date) => void (current = next.getTime()), restore };
}
