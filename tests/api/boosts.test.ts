/** Boost schedules over HTTP (issue 26, item 1): GET /api/boosts, PUT /api/admin/boosts, validation, audit. */
import { describe, expect, it } from "vitest";
import { unitsToPoints } from "../../app/domain/rewards.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { giveItems, nonAdminSession, spooks, useApi, newWallet } from "./support.ts";

const ctx = useApi();
const HOUR = 3_600_000;
const hoursFromNow = (n: number) => new Date((Math.floor(Date.now() / HOUR) + n) * HOUR).toISOString();

const valid = () => ({
  effectiveFrom: hoursFromNow(3),
  rarity: { Common: 100, Rare: 110, Epic: 130, Legendary: 150 },
  tenure: [
    { days: 7, percent: 110 },
    { days: 30, percent: 120 },
  ],
  cap: 200,
});

describe("boost schedules", () => {
  it("answers the defaults until the admin sets one: everything 100%, no tenure steps", async () => {
    const answer = await ctx.call("GET", "/api/boosts");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      current: {
        version: null,
        effectiveFrom: null,
        rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 },
        tenure: [],
        cap: 300,
        createdAt: null,
      },
      upcoming: [],
      history: [],
    });
  });

  it("is the admin's to set", async () => {
    expect((await ctx.call("PUT", "/api/admin/boosts", valid())).status).toBe(401);
    expect((await ctx.call("PUT", "/api/admin/boosts", valid(), { cookie: await nonAdminSession(ctx.sql) })).status).toBe(403);
    expect((await ctx.call("POST", "/api/admin/boosts", valid(), { cookie: await ctx.adminCookie() })).status).toBe(405);
  });

  it("refuses a bad field naming it, and records nothing", async () => {
    const cookie = await ctx.adminCookie();
    const cases: [Record<string, unknown>, string][] = [
      [
        { rarity: { Common: 100, Rare: 105, Epic: 130, Legendary: 150 } },
        "rarity.Rare must be a whole multiple of 10 from 100 to 300 (percent)",
      ],
      [
        { rarity: { Common: 90, Rare: 100, Epic: 130, Legendary: 150 } },
        "rarity.Common must be a whole multiple of 10 from 100 to 300 (percent)",
      ],
      [{ rarity: { Common: 100, Rare: 100, Epic: 130 } }, "rarity.Legendary must be a whole multiple of 10 from 100 to 300 (percent)"],
      [{ cap: 310 }, "cap must be a whole multiple of 10 from 100 to 300 (percent)"],
      [
        {
          tenure: [
            { days: 30, percent: 120 },
            { days: 7, percent: 110 },
          ],
        },
        "tenure[1].days must be more than tenure[0].days (ascending days)",
      ],
      [{ tenure: [{ days: 7, percent: 115 }] }, "tenure[0].percent must be a whole multiple of 10 from 100 to 300 (percent)"],
      [{ tenure: [{ days: 1.5, percent: 110 }] }, "tenure[0].days must be a whole number from 1 to 3650"],
      [{ tenure: [7] }, "tenure[0] must be { days, percent }"],
      [{ effectiveFrom: "tomorrow" }, "effectiveFrom must be an ISO 8601 date and time"],
      [
        { effectiveFrom: new Date(Date.parse(hoursFromNow(3)) + 60_000).toISOString() },
        "effectiveFrom must be a whole hour (minutes, seconds and milliseconds 0)",
      ],
      [{ effectiveFrom: hoursFromNow(-1) }, "effectiveFrom must not be in the past"],
    ];
    for (const [change, message] of cases) {
      const answer = await ctx.call("PUT", "/api/admin/boosts", { ...valid(), ...change }, { cookie });
      expect({ status: answer.status, message: answer.body.message }).toEqual({ status: 400, message });
    }
    const [{ n }] = await ctx.sql`select count(*)::int as n from boost_schedules`;
    expect(n).toBe(0);
  });

  it("records a version from a whole hour, lists it as upcoming, and audits before → after", async () => {
    const cookie = await ctx.adminCookie();
    const body = valid();
    const answer = await ctx.call("PUT", "/api/admin/boosts", body, { cookie });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ version: expect.any(Number), ...body });
    const version = answer.body.version as number;

    const later = { ...valid(), effectiveFrom: hoursFromNow(5), cap: 300 };
    const second = await ctx.call("PUT", "/api/admin/boosts", later, { cookie });
    expect(second.body.version).toBe(version + 1);

    const listed = await ctx.call("GET", "/api/boosts");
    expect(listed.body.current.version).toBeNull();
    expect(listed.body.upcoming.map((s: { version: number }) => s.version)).toEqual([version, version + 1]);

    const audit = await ctx.call("GET", "/api/admin/audit?action=boosts.set", undefined, { cookie });
    const [newest, oldest] = audit.body.entries;
    expect(oldest).toMatchObject({
      actor: "web",
      actorAddress: ctx.admin.address,
      target: `boosts:${version}`,
      before: { version: null, rarity: { Common: 100, Rare: 100, Epic: 100, Legendary: 100 }, tenure: [], cap: 300 },
      after: { version, rarity: body.rarity, tenure: body.tenure, cap: 200 },
    });
    expect(newest).toMatchObject({ before: { version, cap: 200 }, after: { version: version + 1, cap: 300 } });
  });

  it("refuses (409) a schedule from an hour already credited", async () => {
    const cookie = await ctx.adminCookie();
    const credited = hoursFromNow(8);
    await ctx.sql`insert into accrual_runs (hour, wallets, units, source, finished_at) values (${credited}, 0, 0, 'cli', now())`;
    try {
      const answer = await ctx.call("PUT", "/api/admin/boosts", { ...valid(), effectiveFrom: hoursFromNow(7) }, { cookie });
      expect(answer.status).toBe(409);
      expect(answer.body.message).toMatch(/already credited/);
    } finally {
      await ctx.sql`delete from accrual_runs where hour = ${credited}`;
    }
  });

  it("previews a schedule's effect on today's stakes before it is saved, recording nothing", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    const items = await giveItems(ctx.sql, holder.address, spooks(1, 2, 3));
    for (const item of items) {
      await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${holder.address}, now() - interval '40 days')`;
    }
    const [{ n: before }] = await ctx.sql`select count(*)::int as n from boost_schedules`;
    const rarities = await ctx.sql<{ rarity: string }[]>`select rarity from stakes where ended_at is null`;
    // From an hour before the schedules recorded above start: the defaults are in force then.
    const answer = await ctx.call("POST", "/api/admin/boosts/preview", { ...valid(), effectiveFrom: hoursFromNow(2) }, { cookie });
    expect(answer.status).toBe(200);
    // Every open stake is 40 days old: tenure 120%, rarity as the schedule says, capped at 200%.
    const percent = { Common: 100, Rare: 110, Epic: 130, Legendary: 150 } as Record<string, number>;
    const wallets = await ctx.sql<{ n: number }[]>`select count(*)::int as n from stakes where ended_at is null group by address`;
    const rate = (n: number) => (n >= 10 ? 150 : n >= 5 ? 120 : 100);
    const base = wallets.reduce((sum, w) => sum + w.n * rate(w.n), 0);
    expect(answer.body.items).toBe(rarities.length);
    expect(answer.body.before.pointsPerDay).toBe(base);
    expect(answer.body.after.pointsPerDay).toBeGreaterThan(base);
    const sole = rarities.every((r) => r.rarity === rarities[0].rarity) && wallets.length === 1;
    if (sole) expect(answer.body.after.pointsPerDay).toBe((base * Math.min((percent[rarities[0].rarity] * 120) / 100, 200)) / 100);
    const [{ n: after }] = await ctx.sql`select count(*)::int as n from boost_schedules`;
    expect(after).toBe(before);
    expect((await ctx.call("POST", "/api/admin/boosts/preview", { ...valid(), cap: 5 }, { cookie })).status).toBe(400);
  });

  it("a staked item answers its rate with its parts and its next tenure step", async () => {
    // A schedule in force since the last hour, written as the database allows (its start not before it was made).
    const start = new Date(Date.parse(hoursFromNow(0)) - HOUR);
    await ctx.sql`
      insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
      values (${start}, 130, 130, 130, 130, ${ctx.sql.json([
        { days: 7, percent: 110 },
        { days: 30, percent: 120 },
      ])}, 300, 'test', ${start})`;
    const holder = newWallet();
    const [item] = await giveItems(ctx.sql, holder.address, spooks(20));
    const since = new Date(Date.now() - 8 * 86_400_000);
    await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${holder.address}, ${since})`;
    const answer = await ctx.call("GET", `/api/wallet-doginals/${holder.address}`);
    const staked = answer.body.find((row: { name: string }) => row.name === "Spooks #20");
    // 100/day × 130% × 7 days 110% = 143/day; the 30-day step from the first whole hour after its threshold.
    const threshold = since.getTime() + 30 * 86_400_000;
    expect(staked).toMatchObject({
      rewardRate: 100,
      perDay: 143,
      boost: {
        rarityPercent: 130,
        tenurePercent: 110,
        combinedPercent: 143,
        tenureDays: 7,
        tenureFrom: since.toISOString(),
        nextStep: { at: new Date(Math.ceil(threshold / HOUR) * HOUR).toISOString(), percent: 120, days: 30 },
      },
    });
  });

  it("the hour under way says what the accrual then credits, boosts included", async () => {
    const start = new Date(Date.parse(hoursFromNow(0)) - HOUR);
    await ctx.sql`
      insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
      values (${start}, 120, 120, 120, 120, ${ctx.sql.json([{ days: 7, percent: 150 }])}, 300, 'test', ${start})`;
    const holder = newWallet();
    const items = await giveItems(ctx.sql, holder.address, spooks(21, 22));
    // One staked 8 days ago (120% × 150% = 180%), one since an hour ago (120%): both open all this hour.
    const since = [new Date(Date.now() - 8 * 86_400_000), new Date(Date.parse(hoursFromNow(0)) - HOUR)];
    for (const [index, item] of items.entries()) {
      await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${holder.address}, ${since[index]})`;
    }
    const answer = await ctx.call("GET", `/api/rewards/${holder.address}`);
    expect(answer.status).toBe(200);
    const { currentHour } = answer.body;
    expect(currentHour).toMatchObject({ stakedCount: 2, tier: 1, percentSum: 300 });
    expect(currentHour.points).toBeCloseTo((100 * 300) / 100 / 24, 10);
    const hour = new Date(currentHour.start);
    await creditHour(ctx.sql, { hour, at: new Date(hour.getTime() + HOUR), actor: "system", source: "cli" });
    const [row] = await ctx.sql<{ units: number }[]>`
      select amount::int as units from points_ledger where address = ${holder.address} and kind = 'accrual' and accrual_hour = ${hour}`;
    expect(unitsToPoints(row.units)).toBeCloseTo(currentHour.points, 10);
  });
});
