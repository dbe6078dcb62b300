/**
 * GET /api/points/{address}/history (issue 18): every writer of the ledger (accrual, giveaway entry and
 * refund, admin add, clear and negative reset) shows up explained, the deltas sum to the balance
 * /api/rewards reports, balanceAfter is exact at every row, keyset paging, refusals, and the CSV and JSON
 * downloads.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../app/domain/clock.ts";
import { CSV_HEADER } from "../../app/domain/points-history.ts";
import { entryMessage } from "../../app/domain/messages.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { historyExportPage } from "../../db/queries/points-history.server.ts";
import { appendLedger } from "../../db/queries/points.server.ts";
import { givePoints, minutesFromNow, newWallet, useApi, type ApiAnswer, type Wallet } from "./support.ts";

const ctx = useApi();
const UNITS = 2400;
const units = (points: number) => Math.round(points * UNITS);
const twoDecimals = (points: number) => (Math.round(points * 100) / 100).toFixed(2);

type Entry = {
  id: number;
  at: string;
  kind: string;
  delta: number;
  balanceAfter: number;
  details: Record<string, unknown> & { summary: string; source: string };
};

const HOUR0 = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 20 * HOUR_MS);
const hour = (n: number) => new Date(HOUR0.getTime() + n * HOUR_MS);

async function stake(address: string, names: string[], startedAt: Date): Promise<void> {
  await ctx.sql`
    insert into stakes (item_id, address, started_at)
    select id, ${address}, ${startedAt} from items where name = any(${names})`;
}

const credit = (n: number) => creditHour(ctx.sql, { hour: hour(n), at: hour(n + 1), actor: "system", source: "cli" });

async function createGiveaway(title: string, pointsCost: number): Promise<number> {
  const answer = await ctx.call(
    "POST",
    "/api/giveaways",
    { title, description: "Test", imageUrl: "/uploads/x.png", pointsCost, endDate: minutesFromNow(600).toISOString() },
    { cookie: await ctx.adminCookie() },
  );
  expect(answer.status).toBe(201);
  return answer.body.id as number;
}

async function enter(wallet: Wallet, giveawayId: number, tickets: number): Promise<void> {
  const message = entryMessage(giveawayId, tickets, new Date());
  const answer = await ctx.call("POST", "/api/giveaways/enter", {
    giveawayId,
    address: wallet.address,
    tickets,
    message,
    signature: wallet.sign(message),
  });
  expect(answer.status).toBe(200);
}

/** Every entry, page after page of `limit`, checking each page's shape. */
async function wholeHistory(address: string, limit: number, extra = ""): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const answer: ApiAnswer = await ctx.call(
      "GET",
      `/api/points/${address}/history?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}${extra}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.entries.length).toBeLessThanOrEqual(limit);
    entries.push(...(answer.body.entries as Entry[]));
    cursor = answer.body.nextCursor;
    if (cursor === null) return entries;
    expect(cursor).toBe(String(answer.body.entries.at(-1).id));
  }
  throw new Error("paging never ended");
}

async function rewardsUnits(address: string): Promise<number> {
  const answer = await ctx.call("GET", `/api/rewards/${address}`);
  return units(answer.body.unclaimedRewards as number);
}

/** balanceAfter of each row is the sum of every delta at or below it (newest first), and the newest is the balance. */
function expectExactBalances(entries: Entry[], balanceUnits: number): void {
  let below = entries.reduce((sum, entry) => sum + units(entry.delta), 0);
  expect(below).toBe(balanceUnits);
  for (const entry of entries) {
    expect(units(entry.balanceAfter), `balanceAfter of entry ${entry.id}`).toBe(below);
    below -= units(entry.delta);
  }
  expect(below).toBe(0);
}

const holder = newWallet();
let prize: number;
let deleted: number;

beforeAll(async () => {
  // 4 Spooks and 2 Spook Society staked from before hour 0: tier 2 (120 a day each) for hours 0-2;
  // then 3 of them end, and hour 3 is tier 1 (100 a day each) for 3 items.
  await stake(holder.address, ["Spooks #1", "Spooks #2", "Spooks #3", "Spook Society #1"], hour(-1));
  await stake(holder.address, ["Spooks #4", "Spook Society #2"], hour(-1));
  for (const n of [0, 1, 2]) await credit(n);
  await ctx.sql`
    update stakes set ended_at = ${hour(3)}, end_reason = 'unstaked'
    where address = ${holder.address} and item_id in (select id from items where name = any(${["Spooks #4", "Spook Society #2", "Spooks #3"]}))`;
  await credit(3);

  const cookie = await ctx.adminCookie();
  const added = await ctx.call(
    "POST",
    "/api/add-permanent-points",
    { address: holder.address, amount: 500, description: "Contest prize" },
    { cookie },
  );
  expect(added.status).toBe(200);
  prize = await createGiveaway("Haunted Hoodie", 25);
  deleted = await createGiveaway("Crypt Key", 10);
  await enter(holder, prize, 2);
  await enter(holder, deleted, 3);
  expect((await ctx.call("DELETE", `/api/giveaways/${deleted}`, {}, { cookie })).status).toBe(200);
  expect((await ctx.call("POST", "/api/admin/clear-points", { address: holder.address }, { cookie })).status).toBe(200);
  // A balance below zero (the CLI's or an old row's doing), then the admin's reset.
  await appendLedger(ctx.sql, [{ address: holder.address, kind: "admin_clear", units: -30 * UNITS, actor: { kind: "cli" } }]);
  expect((await ctx.call("POST", "/api/admin/reset-negative-balances", {}, { cookie })).status).toBe(200);
  await givePoints(ctx.sql, holder.address, 42.5);
}, 60_000);

describe("GET /api/points/{address}/history", () => {
  it("lists every change newest first, each kind explained, summing to the balance /api/rewards reports", async () => {
    const entries = await wholeHistory(holder.address, 500);
    expect(entries.map((entry) => entry.kind)).toEqual([
      "admin_add",
      "negative_reset",
      "admin_clear",
      "admin_clear",
      "giveaway_refund",
      "giveaway_entry",
      "giveaway_entry",
      "admin_add",
      "accrual",
      "accrual",
      "accrual",
      "accrual",
    ]);
    expect(entries.map((entry) => entry.id)).toEqual([...entries.map((entry) => entry.id)].sort((a, b) => b - a));
    expectExactBalances(entries, await rewardsUnits(holder.address));
    expect(entries[0].balanceAfter).toBe(42.5);

    const accruals = entries.filter((entry) => entry.kind === "accrual");
    expect(accruals.at(-1)).toMatchObject({
      delta: 30,
      details: {
        source: "recorded",
        hour: hour(0).toISOString(),
        staked: { spooks: 4, spookSociety: 2 },
        tier: 2,
        dailyRatePerItem: 120,
      },
    });
    expect(accruals[0]).toMatchObject({ delta: 12.5, details: { staked: { spooks: 2, spookSociety: 1 }, tier: 1, dailyRatePerItem: 100 } });
    expect(accruals[0].details.summary).toMatch(
      /^Hour \d{4}-\d\d-\d\d \d\d:00–\d\d:00 UTC: 2 Spooks and 1 Spook Society staked, tier 1, 100 points a day each$/,
    );

    const [refund, lostEntry, entry] = entries.filter((row) => row.kind.startsWith("giveaway_"));
    expect(entry).toMatchObject({ delta: -50, details: { giveawayId: prize, giveawayTitle: "Haunted Hoodie", tickets: 2 } });
    expect(entry.details.summary).toBe(`2 tickets in giveaway #${prize} "Haunted Hoodie"`);
    expect(lostEntry).toMatchObject({ delta: -30, details: { giveawayId: deleted, giveawayTitle: "Crypt Key", tickets: 3 } });
    expect(refund).toMatchObject({ delta: 30, details: { giveawayId: deleted, tickets: 3 } });
    expect(refund.details.summary).toBe(`Refund of 3 tickets: giveaway #${deleted} "Crypt Key" was deleted`);

    const admin = entries.filter((row) => row.kind === "admin_add").at(-1)!;
    expect(admin).toMatchObject({ delta: 500, details: { description: "Contest prize", by: "the admin" } });
    const [, clear] = entries.filter((row) => row.kind === "admin_clear");
    expect(clear.balanceAfter).toBe(0);
    expect(entries.find((row) => row.kind === "negative_reset")).toMatchObject({ delta: 30, balanceAfter: 0 });
  });

  it("pages by keyset: every entry once, in order, whatever the page size, and new entries do not shift older pages", async () => {
    const all = await wholeHistory(holder.address, 500);
    for (const limit of [1, 3, 5]) expect(await wholeHistory(holder.address, limit)).toEqual(all);

    const first = await ctx.call("GET", `/api/points/${holder.address}/history?limit=4`);
    await givePoints(ctx.sql, holder.address, 1);
    const second = await ctx.call("GET", `/api/points/${holder.address}/history?limit=4&cursor=${first.body.nextCursor}`);
    expect(second.body.entries).toEqual(all.slice(4, 8));
    const now = await wholeHistory(holder.address, 7);
    expect(now.slice(1)).toEqual(all);
    expectExactBalances(now, await rewardsUnits(holder.address));
  });

  it("filters by kind and keeps the wallet's balances", async () => {
    const all = await wholeHistory(holder.address, 500);
    const some = await wholeHistory(holder.address, 2, "&kind=giveaway_entry,giveaway_refund");
    expect(some).toEqual(all.filter((entry) => entry.kind.startsWith("giveaway_")));
  });

  it("answers an empty history for a wallet without points", async () => {
    const answer = await ctx.call("GET", `/api/points/${newWallet().address}/history`);
    expect(answer.body).toEqual({ entries: [], nextCursor: null });
  });

  it("refuses a bad address, limit, cursor, kind or format with 400 and a message", async () => {
    const base = `/api/points/${holder.address}/history`;
    const refusals: [string, string][] = [
      [`/api/points/not-an-address/history`, "Invalid Dogecoin address"],
      [`${base}?limit=0`, "limit must be at least 1"],
      [`${base}?limit=501`, "limit must be at most 500"],
      [`${base}?limit=2.5`, "limit must be a whole number"],
      [`${base}?limit=ten`, "limit must be a number"],
      [`${base}?cursor=abc`, "cursor must be the nextCursor of an earlier page"],
      [`${base}?cursor=0`, "cursor must be the nextCursor of an earlier page"],
      [`${base}?cursor=-5`, "cursor must be the nextCursor of an earlier page"],
      [`${base}?cursor=99999999999999999999`, "cursor must be the nextCursor of an earlier page"],
      [`${base}?kind=bonus`, "kind must be one or more of"],
      [`${base}?format=xml`, "format must be csv or json"],
    ];
    for (const [path, message] of refusals) {
      const answer = await ctx.call("GET", path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.message, path).toContain(message);
    }
  });
});

/** Splits one CSV line into its fields (RFC 4180 quoting). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  const pattern = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (const match of line.matchAll(pattern)) {
    const raw = match[1];
    fields.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
    if (match[2] === "") break;
  }
  return fields;
}

describe("exports", () => {
  it("?format=csv downloads the whole history as CSV with the exact header", async () => {
    const all = await wholeHistory(holder.address, 500);
    const answer = await ctx.call("GET", `/api/points/${holder.address}/history?format=csv&limit=1`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(answer.headers.get("content-encoding")).toBe("gzip");
    expect(answer.headers.get("content-disposition")).toBe(`attachment; filename="spooks-points-${holder.address}.csv"`);
    const lines = (answer.body as string).split("\r\n");
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines.at(-1)).toBe("");
    const rows = lines.slice(1, -1).map(csvFields);
    // Two decimals, as the page and the CLI show points (DECISIONS "Points"): 737.50, never 737.5.
    expect(rows).toEqual(
      all.map((entry) => [
        entry.at,
        entry.kind,
        twoDecimals(entry.delta),
        twoDecimals(entry.balanceAfter),
        entry.details.summary,
        String(units(entry.delta)),
        String(units(entry.balanceAfter)),
      ]),
    );
    for (const row of rows) expect(row.slice(2, 4).every((cell) => /^-?\d+\.\d{2}$/.test(cell))).toBe(true);
  });

  it("?format=json downloads the page's answer with every entry", async () => {
    const all = await wholeHistory(holder.address, 500);
    const answer = await ctx.call("GET", `/api/points/${holder.address}/history?format=json`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-disposition")).toBe(`attachment; filename="spooks-points-${holder.address}.json"`);
    expect(answer.body).toEqual({ entries: all, nextCursor: null });
  });

  it("an empty history is a header alone, or no entries", async () => {
    const address = newWallet().address;
    expect((await ctx.call("GET", `/api/points/${address}/history?format=csv`)).body).toBe(`${CSV_HEADER}\r\n`);
    expect((await ctx.call("GET", `/api/points/${address}/history?format=json`)).body).toEqual({ entries: [], nextCursor: null });
  });

  it("streams thousands of entries in batches with exact balances", async () => {
    const wallet = newWallet();
    await ctx.sql`
      insert into points_ledger (address, kind, amount, description, actor, created_at)
      select ${wallet.address}, case when g % 3 = 0 then 'admin_clear' else 'admin_add' end,
             case when g % 3 = 0 then -7 * g else 11 * g end, 'bulk', 'cli', now()
      from generate_series(1, 4500) as g`;
    const answer = await ctx.call("GET", `/api/points/${wallet.address}/history?format=csv`);
    const rows = (answer.body as string).split("\r\n").slice(1, -1).map(csvFields);
    expect(rows).toHaveLength(4500);
    // Newest first: row i is g = 4500 - i; each balance is the exact running balance, to two decimals.
    let below = await rewardsUnits(wallet.address);
    rows.forEach((row, index) => {
      const g = 4500 - index;
      const amount = g % 3 === 0 ? -7 * g : 11 * g;
      expect(row[2]).toBe(twoDecimals(amount / UNITS));
      expect(row[3]).toBe(twoDecimals(below / UNITS));
      below -= amount;
    });
    expect(below).toBe(0);
  });

  it("a client has at most two downloads open (429 with Retry-After beyond); one that goes away frees its place", async () => {
    const wallet = newWallet();
    await ctx.sql`
      insert into points_ledger (address, kind, amount, description, actor, created_at)
      select ${wallet.address}, 'admin_add', g, 'bulk', 'cli', now() from generate_series(1, 60000) as g`;
    const path = `/api/points/${wallet.address}/history?format=csv`;
    // Two downloads whose client reads nothing: the server stops at the socket's buffers, holding nothing in the database.
    const stalled = await Promise.all([fetch(ctx.url + path), fetch(ctx.url + path)]);
    expect(stalled.map((response) => response.status)).toEqual([200, 200]);
    const refused = await ctx.call("GET", path);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("Too many downloads at once from your address (at most 2); try again in a few seconds");
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await ctx.call("GET", `/api/points/${wallet.address}/history?limit=1`)).status).toBe(200);

    await Promise.all(stalled.map((response) => response.body?.cancel() ?? Promise.resolve()));
    let status = 429;
    for (let attempt = 0; attempt < 50 && status === 429; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(ctx.url + path);
      status = response.status;
      await response.body?.cancel();
    }
    expect(status).toBe(200);
  }, 60_000);

  it("a download from a cursor, of some kinds, over many pages is the paged answer's entries, byte for byte", async () => {
    const wallet = newWallet();
    await ctx.sql`
      insert into points_ledger (address, kind, amount, description, actor, created_at)
      select ${wallet.address}, case when g % 4 = 0 then 'admin_clear' when g % 4 = 1 then 'negative_reset' else 'admin_add' end,
             case when g % 4 = 0 then -5 * g else 9 * g end, 'row ' || g, 'cli', now()
      from generate_series(1, 3500) as g`;
    const [{ id: middle }] = await ctx.sql<{ id: number }[]>`
      select id from points_ledger where address = ${wallet.address} order by id desc offset 700 limit 1`;
    const kinds = "&kind=admin_add,admin_clear";
    const paged = (await wholeHistory(wallet.address, 500, kinds)).filter((entry) => entry.id < middle);
    expect(paged.length).toBeGreaterThan(2000);
    const download = await fetch(`${ctx.url}/api/points/${wallet.address}/history?format=json&cursor=${middle}${kinds}`);
    expect(await download.text()).toBe(`${JSON.stringify({ entries: paged, nextCursor: null })}\n`);
  });

  it("an export's pages keep the balances of its first page's moment: rows written during it are not in it", async () => {
    const wallet = newWallet();
    await givePoints(ctx.sql, wallet.address, 10);
    for (let row = 0; row < 4; row++) await givePoints(ctx.sql, wallet.address, 1 + row);
    const before = await wholeHistory(wallet.address, 500);
    const first = await historyExportPage(ctx.sql, { address: wallet.address }, null, 2);
    await givePoints(ctx.sql, wallet.address, 1000);
    const exported = [...first.rows];
    for (let cursor = first.next; cursor !== null;) {
      const page = await historyExportPage(ctx.sql, { address: wallet.address }, cursor, 2);
      exported.push(...page.rows);
      cursor = page.next;
    }
    // The API's rows also say where each is in the public log (issue 34); the export's pages are the rows themselves.
    expect(JSON.parse(JSON.stringify(exported))).toEqual(
      before.map((entry) => Object.fromEntries(Object.entries(entry).filter(([key]) => key !== "logIndex"))),
    );
  });
});
