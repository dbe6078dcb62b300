/**
 * Migration 0011 (points history) on a database that already has a ledger: old rows get what can still be
 * known (accruals from their stakes, giveaway rows from their reference, entries and text), the rest is
 * marked unknown, nothing else of a row changes, and the ledger is append-only again afterwards.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Sql } from "./client.server.ts";
import { databaseBefore } from "./testing/older-database.ts";
import { pointsHistoryPage } from "./queries/points-history.server.ts";

const HOLDER = "DHy2eGMWsFUmjur4GVeafrioGdHj7HGDyj";
const H = new Date("2026-10-01T10:00:00Z");
const later = (hours: number) => new Date(H.getTime() + hours * 3_600_000);

let sql: Sql;
let close: () => Promise<void>;

const ledgerRow = (kind: string, amount: number, fields: { hour?: Date; reference?: string; description?: string } = {}) => sql`
  insert into points_ledger (address, kind, amount, accrual_hour, reference, description, actor, created_at)
  values (${HOLDER}, ${kind}, ${amount}, ${fields.hour ?? null}, ${fields.reference ?? null}, ${fields.description ?? null}, 'system',
          ${fields.hour ? later(1) : later(5)})`;

beforeAll(async () => {
  const older = await databaseBefore("m0011", "0011");
  ({ sql } = older);
  close = older.close;

  const items = await sql<{ id: number }[]>`
    insert into items (inscription_id, collection, name, number, rank, rarity) values
      (${`${"a".repeat(64)}i0`}, 'spooks', 'Spooks #1', 1, 500, 'Common'),
      (${`${"b".repeat(64)}i0`}, 'spooks', 'Spooks #2', 2, 501, 'Common'),
      (${`${"c".repeat(64)}i0`}, 'spook-society', 'Spook Society #1', 1, 500, 'Common')
    returning id`;
  for (const item of items) {
    await sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${HOLDER}, ${later(-1)})`;
  }
  await ledgerRow("accrual", 30_000, { hour: H }); // 3 items at tier 1: explained by the stakes
  await ledgerRow("accrual", 45_000, { hour: later(1) }); // no count of these stakes gives it: unknown

  const [kept] = await sql<{ id: number }[]>`
    insert into giveaways (title, description, image_url, points_cost, end_date, draw_commitment, draw_seed, created_at)
    values ('Haunted Hoodie', 'd', '/x.png', 1, ${later(100)}, ${"0".repeat(64)}, ${"1".repeat(64)}, ${H}) returning id`;
  const [entry] = await sql<{ id: number }[]>`
    insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at)
    values (${kept.id}, ${HOLDER}, 2, 4800, ${later(3)}) returning id`;
  await ledgerRow("giveaway_entry", -4800, {
    reference: `giveaway:${kept.id}:entry:${entry.id}`,
    description: `Giveaway #${kept.id}: 2 ticket(s)`,
  });
  // A giveaway deleted since: its entry row and refund remain, its title and entries do not.
  await ledgerRow("giveaway_entry", -7200, { reference: "giveaway:99:entry:500", description: "Giveaway #99: 3 ticket(s)" });
  await ledgerRow("giveaway_refund", 7200, { reference: "giveaway:99:entry:500", description: "Refund: giveaway #99 deleted" });
  await ledgerRow("giveaway_refund", 100, { reference: "something else", description: "Refund" });
  await ledgerRow("admin_add", 24_000, { description: "Welcome" });

  await older.migrateTheRest();
}, 60_000);

afterAll(async () => close?.());

it("explains old rows with what can be known and marks the rest unknown", async () => {
  const rows = await sql`
    select kind, amount, staked_spooks, staked_spook_society, tier, item_hour_units, giveaway_id, giveaway_title, tickets, details_source
    from points_ledger order by id`;
  expect(rows.map((row) => ({ ...row }))).toEqual([
    expect.objectContaining({
      kind: "accrual",
      stakedSpooks: 2,
      stakedSpookSociety: 1,
      tier: 1,
      itemHourUnits: 10_000,
      detailsSource: "reconstructed",
    }),
    expect.objectContaining({ kind: "accrual", stakedSpooks: null, tier: null, detailsSource: "unknown" }),
    expect.objectContaining({ kind: "giveaway_entry", giveawayTitle: "Haunted Hoodie", tickets: 2, detailsSource: "reconstructed" }),
    expect.objectContaining({ kind: "giveaway_entry", giveawayId: 99, giveawayTitle: null, tickets: 3, detailsSource: "reconstructed" }),
    expect.objectContaining({ kind: "giveaway_refund", giveawayId: 99, giveawayTitle: null, tickets: 3, detailsSource: "reconstructed" }),
    expect.objectContaining({ kind: "giveaway_refund", giveawayId: null, tickets: null, detailsSource: "unknown" }),
    expect.objectContaining({ kind: "admin_add", detailsSource: "recorded" }),
  ]);
  expect(rows.map((row) => row.amount)).toEqual([30_000, 45_000, -4800, -7200, 7200, 100, 24_000]);

  const { entries } = await pointsHistoryPage(sql, { address: HOLDER }, 50);
  expect(entries.map((entry) => entry.details.summary)).toEqual([
    "Added by the system: Welcome",
    "Refund",
    "Refund of 3 tickets: giveaway #99 was deleted",
    "3 tickets in giveaway #99",
    expect.stringMatching(/^2 tickets in giveaway #\d+ "Haunted Hoodie"$/),
    "Hour 2026-10-01 11:00–12:00 UTC; what was staked is not known",
    "Hour 2026-10-01 10:00–11:00 UTC: 2 Spooks and 1 Spook Society staked, tier 1, 100 points a day each",
  ]);
});

it("keeps the ledger append-only and refuses a new accrual its details do not explain", async () => {
  await expect(sql`update points_ledger set tier = 3`).rejects.toThrow(/append-only/);
  await expect(sql`
    insert into points_ledger (address, kind, amount, accrual_hour, staked_spooks, staked_spook_society, tier, item_hour_units, actor, created_at)
    values (${HOLDER}, 'accrual', 40000, ${later(2)}, 2, 1, 1, 10000, 'system', ${later(3)})`).rejects.toThrow(
    /points_ledger_accrual_explained/,
  );
  await expect(sql`
    insert into points_ledger (address, kind, amount, accrual_hour, actor, created_at)
    values (${HOLDER}, 'accrual', 30000, ${later(2)}, 'system', ${later(3)})`).rejects.toThrow(/points_ledger_accrual_explained/);
});
