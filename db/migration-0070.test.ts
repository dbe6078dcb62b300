/**
 * Migration 0070 on a database whose accrual basis already credits wallets (issue 36, item 2): every balance is
 * what it was, and the leaderboard's bound, now kept with the basis instead of read from the index the migration
 * drops, covers what the basis had credited before it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Sql } from "./client.server.ts";
import { leaderboardRank } from "./queries/holdings.server.ts";
import { databaseBefore } from "./testing/older-database.ts";

let sql: Sql;
let close: () => Promise<void>;
const [EARNER, AHEAD, BEHIND_ROW] = [
  "DEarnerAddress00000000000000000001",
  "DAheadAddress000000000000000000002",
  "DBehindRow0000000000000000000003",
];
const balancesNow = () =>
  sql<{ address: string; units: number }[]>`select address, units from wallet_balances order by address`.then((rows) =>
    rows.map((row) => ({ address: row.address, units: Number(row.units) })),
  );
let before: { address: string; units: number }[];

beforeAll(async () => {
  const older = await databaseBefore("m0070", "0070");
  ({ sql } = older);
  close = older.close;
  // Five hours credited through the basis: the earner's five not yet folded into its row, the other's three.
  await sql`insert into balances (address, units) values (${EARNER}, 100000), (${AHEAD}, 500000), (${BEHIND_ROW}, 200000)`;
  await sql`
    insert into accrual_basis (address, staked_spooks, staked_spook_society, rarity_percent_sum, boost_percent_sum, hourly_units, since_credit)
    values (${EARNER}, 1, 0, 300, 300, 30000, 0), (${AHEAD}, 1, 0, 100, 100, 10000, 2)`;
  await sql`insert into accrual_basis_hour (hour, boost_version, credits) values ('2031-01-01T05:00:00Z', null, 5)`;
  before = await balancesNow();
  await older.migrateTheRest();
}, 120_000);

afterAll(async () => {
  await close?.();
});

it("keeps every balance, carries nothing yet, and keeps the basis's highest hourly credit for the bound", async () => {
  expect(before).toEqual([
    { address: AHEAD, units: 530_000 },
    { address: BEHIND_ROW, units: 200_000 },
    { address: EARNER, units: 250_000 },
  ]);
  expect(await balancesNow()).toEqual(before);
  const [hour] = await sql<{ maxHourlyUnits: number; maxCarriedUnits: number }[]>`
    select max_hourly_units, max_carried_units from accrual_basis_hour`;
  expect([hour.maxHourlyUnits, hour.maxCarriedUnits].map(Number)).toEqual([30_000, 0]);
  expect(await sql`select 1 from accrual_basis where carried_units <> 0`).toHaveLength(0);
});

it("ranks by the whole balance: a wallet whose row is below another's but whose balance is above counts ahead of it", async () => {
  // The earner's row (100,000) is below the other's balance (200,000) by more than nothing: only the bound
  // brings it into the count, and its balance (250,000) is ahead.
  expect(await leaderboardRank(sql, BEHIND_ROW, 200_000)).toBe(3);
  expect(await leaderboardRank(sql, EARNER, 250_000)).toBe(2);
});

it("drops the index on the hourly credits and leaves room in the basis's pages for the switch's updates", async () => {
  expect(await sql`select 1 from pg_indexes where indexname = 'accrual_basis_by_rate'`).toHaveLength(0);
  const [table] = await sql<{ options: string[] }[]>`select reloptions as options from pg_class where relname = 'accrual_basis'`;
  expect(table.options).toContain("fillfactor=45");
});
