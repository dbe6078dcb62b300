/**
 * Issue 33, item 3: every rate is the rate credited. A boosted wallet (a Legendary staked 34 days, an Epic,
 * Commons; tier 2) reads the same daily rate in every answer that shows one (GET /api/rewards's `dailyRate`,
 * its items' `perDay` added up, the leaderboard's entry, the admin's users and the CLI's `users`), and the
 * next hour the accrual credits is exactly that rate / 24. Then: a schedule is announced when it is saved, and an
 * upcoming one can be cancelled (it never comes into force), the started one cannot.
 */
import { describe, expect, it } from "vitest";
import { unitsToPoints, UNITS_PER_POINT } from "../../app/domain/rewards.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { listUsers } from "../../db/queries/points.server.ts";
import { giveItems, givePoints, newWallet, useApi } from "./support.ts";

const ctx = useApi();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const hourNow = () => Math.floor(Date.now() / HOUR) * HOUR;

async function itemsOf(rarity: string, count: number, skip = 0): Promise<string[]> {
  const rows = await ctx.sql<{ name: string }[]>`
    select name from items where collection = 'spooks' and rarity = ${rarity} order by number offset ${skip} limit ${count}`;
  return rows.map((row) => row.name);
}

describe("every rate is the rate credited (issue 33, item 3)", () => {
  it("rewards, items, leaderboard, admin users and the CLI show one daily rate, and the next hour credits it / 24", async () => {
    // A schedule in force since before the hour began (written as the database allows: not before it was made).
    const start = new Date(hourNow() - 40 * DAY);
    await ctx.sql`
      insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
      values (${start}, 100, 110, 130, 150, ${ctx.sql.json([
        { days: 7, percent: 110 },
        { days: 30, percent: 120 },
      ])}, 200, 'test', ${start})`;
    const holder = newWallet();
    const names = [...(await itemsOf("Legendary", 1)), ...(await itemsOf("Epic", 1)), ...(await itemsOf("Common", 3))];
    const items = await giveItems(ctx.sql, holder.address, names);
    // The Legendary 34 days ago (150% × 120% = 180%), the Epic 8 days ago (130% × 110% = 143%), Commons an hour ago.
    const since = [hourNow() - 34 * DAY, hourNow() - 8 * DAY, hourNow() - HOUR, hourNow() - HOUR, hourNow() - HOUR];
    for (const [index, item] of items.entries()) {
      await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${holder.address}, ${new Date(since[index])})`;
    }
    await givePoints(ctx.sql, holder.address, 5000);
    // Tier 2 (5 items, 120 a day each): 120 × (180 + 143 + 100 + 100 + 100) / 100 = 747.6 a day.
    const expected = 747.6;

    const rewards = await ctx.call("GET", `/api/rewards/${holder.address}`);
    expect(rewards.body.dailyRate).toBe(expected);
    const walletItems = (await ctx.call("GET", `/api/wallet-doginals/${holder.address}`)).body as { perDay: number | null }[];
    expect(walletItems.reduce((sum, item) => sum + (item.perDay ?? 0), 0)).toBeCloseTo(expected, 9);
    const board = (await ctx.call("GET", "/api/leaderboard?limit=100")).body as { address: string; dailyRate: number }[];
    expect(board.find((entry) => entry.address === holder.address)?.dailyRate).toBe(expected);
    const users = (await ctx.call("GET", "/api/admin/users", undefined, { cookie: await ctx.adminCookie() })).body as {
      address: string;
      dailyRate: number;
    }[];
    expect(users.find((user) => user.address === holder.address)?.dailyRate).toBe(expected);
    // `spooks-admin users` prints this row's dailyRate ("Per Day").
    expect((await listUsers(ctx.sql, { search: holder.address }))[0].dailyRate).toBe(expected);

    // What the hour under way credits: every stake was open when it began.
    expect(rewards.body.currentHour.points * 24).toBeCloseTo(expected, 9);
    const hour = new Date(hourNow());
    await creditHour(ctx.sql, { hour, at: new Date(hour.getTime() + HOUR), actor: "system", source: "cli" });
    const [row] = await ctx.sql<{ units: string }[]>`
      select amount::text as units from points_ledger where address = ${holder.address} and kind = 'accrual' and accrual_hour = ${hour}`;
    expect(Number(row.units) * 24).toBe(expected * UNITS_PER_POINT);
    expect(unitsToPoints(Number(row.units)) * 24).toBeCloseTo(expected, 9);
  });

  it("a saved schedule is announced to holders (bell, channels); an upcoming one can be cancelled, a started one cannot", async () => {
    const cookie = await ctx.adminCookie();
    const from = new Date(hourNow() + 5 * HOUR).toISOString();
    const body = { effectiveFrom: from, rarity: { Common: 100, Rare: 100, Epic: 140, Legendary: 160 }, tenure: [], cap: 300 };
    const saved = await ctx.call("PUT", "/api/admin/boosts", body, { cookie });
    expect(saved.status).toBe(201);
    const version = saved.body.version as number;

    const holder = newWallet();
    const bell = (await ctx.call("GET", `/api/notifications/${holder.address}`)).body as {
      entries: { event: string; title: string; body: string }[];
    };
    const announced = bell.entries.find((entry) => entry.event === "boosts.scheduled");
    expect(announced?.body).toContain("Legendary 160%, Epic 140%");
    expect(announced?.title).toMatch(/^Boosts change from [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:00 UTC$/);

    expect((await ctx.call("DELETE", `/api/admin/boosts/${version}`)).status).toBe(401);
    const cancelled = await ctx.call("DELETE", `/api/admin/boosts/${version}`, undefined, { cookie });
    expect(cancelled.status).toBe(200);
    const listed = await ctx.call("GET", "/api/boosts");
    expect(listed.body.upcoming.map((s: { version: number }) => s.version)).not.toContain(version);
    expect((await ctx.call("DELETE", `/api/admin/boosts/${version}`, undefined, { cookie })).status).toBe(409);
    expect((await ctx.call("DELETE", "/api/admin/boosts/99999", undefined, { cookie })).status).toBe(404);
    const after = (await ctx.call("GET", `/api/notifications/${holder.address}`)).body as { entries: { title: string }[] };
    expect(after.entries.map((entry) => entry.title)).toContain("Boost change cancelled");
    const audit = await ctx.call("GET", "/api/admin/audit?action=boosts.cancel", undefined, { cookie });
    expect(audit.body.entries[0]).toMatchObject({ target: `boosts:${version}`, after: { cancelled: true } });

    // The schedule in force (the first test's, started 40 days ago) cannot be cancelled, by the API or the database.
    const [started] = await ctx.sql<{ version: number }[]>`select version from boost_schedules where effective_from < now() limit 1`;
    expect((await ctx.call("DELETE", `/api/admin/boosts/${started.version}`, undefined, { cookie })).status).toBe(409);
    await expect(
      ctx.sql`insert into boost_schedule_cancellations (version, cancelled_at, cancelled_by) values (${started.version}, now(), 'x')`,
    ).rejects.toThrow(/only an upcoming schedule/);
  });
});
