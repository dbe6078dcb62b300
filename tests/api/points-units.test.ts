/**
 * The points history's downloads can be summed (issue 32, item 12): beside the two-decimal `delta` and
 * `balance_after`, every row carries `delta_units` and `balance_after_units`, whole 1/2,400ths of a point, the
 * ledger's own values. A boosted wallet accruing for a day makes hourly credits that two decimals cannot
 * hold; its units add up to its balance exactly.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { giveItems, newWallet, society, spooks, useApi } from "./support.ts";

const ctx = useApi();
const UNITS_PER_POINT = 2400;
const HOURS = 24;
const HOUR0 = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - (HOURS + 2) * HOUR_MS);
const hour = (n: number) => new Date(HOUR0.getTime() + n * HOUR_MS);
const holder = newWallet();

/** Splits one CSV line into its fields (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  for (const match of line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)) {
    fields.push(match[1].startsWith('"') ? match[1].slice(1, -1).replace(/""/g, '"') : match[1]);
    if (match[2] === "") break;
  }
  return fields;
}

async function balanceUnits(address: string): Promise<number> {
  const [row] = await ctx.sql<{ units: number }[]>`select units from wallet_balances where address = ${address}`;
  return row.units;
}

beforeAll(async () => {
  // Boosts from before the first hour credited: every rarity its own percentage, a tenure step after a day.
  await ctx.sql`
    insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
    values (${hour(-1)}, 110, 130, 170, 230, ${ctx.sql.json([{ days: 1, percent: 150 }])}, 300, 'test', ${hour(-1)})`;
  const items = await giveItems(ctx.sql, holder.address, [...spooks(1, 2, 3, 4, 5, 6, 7), ...society(1, 2, 3)]);
  // Some staked for days (the tenure step applies), some from the first hour.
  for (const [index, item] of items.entries()) {
    const since = index % 2 === 0 ? new Date(HOUR0.getTime() - 3 * 86_400_000) : hour(0);
    await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${holder.address}, ${since})`;
  }
  for (let n = 0; n < HOURS; n++) await creditHour(ctx.sql, { hour: hour(n), at: hour(n + 1), actor: "system", source: "cli" });
  // An admin's odd amount too (7.0001 points is not two decimals either).
  await ctx.sql`
    insert into points_ledger (address, kind, amount, description, actor, created_at)
    values (${holder.address}, 'admin_add', 16800, 'prize', 'cli', now()), (${holder.address}, 'admin_clear', -1, 'odd', 'cli', now())`;
}, 120_000);

describe("the points history's units", () => {
  it("CSV: delta_units and balance_after_units after today's columns, summing to the balance exactly", async () => {
    const answer = await ctx.call("GET", `/api/points/${holder.address}/history?format=csv`);
    expect(answer.status).toBe(200);
    const lines = (answer.body as string).split("\r\n");
    expect(lines[0]).toBe("at,kind,delta,balance_after,details,delta_units,balance_after_units");
    const rows = lines.slice(1, -1).map(csvFields);
    expect(rows.length).toBe(HOURS + 2);
    const balance = await balanceUnits(holder.address);
    const sum = rows.reduce((total, row) => total + Number(row[5]), 0);
    expect(sum).toBe(balance);
    // Each row's units are whole, its balance the running sum, and its two-decimal columns the same values rounded.
    let below = balance;
    for (const row of rows) {
      expect(row[5]).toMatch(/^-?\d+$/);
      expect(Number(row[6])).toBe(below);
      expect(row[2]).toBe((Math.round((Number(row[5]) / UNITS_PER_POINT) * 100) / 100).toFixed(2));
      below -= Number(row[5]);
    }
    expect(below).toBe(0);
  });

  it("JSON (download and page): deltaUnits and balanceAfterUnits beside the numbers, summing alike", async () => {
    const download = await ctx.call("GET", `/api/points/${holder.address}/history?format=json`);
    const page = await ctx.call("GET", `/api/points/${holder.address}/history?limit=500`);
    const balance = await balanceUnits(holder.address);
    for (const answer of [download, page]) {
      expect(answer.status).toBe(200);
      const entries = answer.body.entries as { delta: number; balanceAfter: number; deltaUnits: number; balanceAfterUnits: number }[];
      expect(entries.reduce((total, entry) => total + entry.deltaUnits, 0)).toBe(balance);
      expect(entries[0].balanceAfterUnits).toBe(balance);
      for (const entry of entries) {
        expect(Number.isInteger(entry.deltaUnits)).toBe(true);
        expect(entry.delta).toBe(entry.deltaUnits / UNITS_PER_POINT);
        expect(entry.balanceAfter).toBe(entry.balanceAfterUnits / UNITS_PER_POINT);
      }
    }
  });
});
