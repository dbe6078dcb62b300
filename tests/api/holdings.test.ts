/** Holdings, stats, rewards, the catalogue, leaderboard, sign-in's challenge and checks, health, and the API's generic answers (404, 405, 413, bad JSON). */
import { describe, expect, it } from "vitest";
import { setClock } from "../../app/domain/clock.ts";
import { giveItems, givePoints, newWallet, society, spooks, useApi } from "./support.ts";

const ctx = useApi();

async function stake(address: string, names: string[]): Promise<void> {
  await ctx.sql`
    insert into stakes (item_id, address, started_at)
    select id, ${address}, now() - interval '1 day' from items where name = any(${names})`;
}

describe("wallet items, stats and rewards", () => {
  it("lists the wallet's catalogue items with rarity, rank and staking state", async () => {
    const holder = newWallet();
    await giveItems(ctx.sql, holder.address, [...spooks(1, 2), ...society(3)]);
    await stake(holder.address, spooks(2));
    const answer = await ctx.call("GET", `/api/wallet-doginals/${holder.address}?_t=${Date.now()}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(3);
    const expected = ctx.catalogue.find((item) => item.name === "Spooks #2")!;
    const labelLevel = { Common: 1, Rare: 2, Epic: 3, Legendary: 4 } as const;
    expect(answer.body.find((item: { name: string }) => item.name === "Spooks #2")).toEqual({
      id: expect.any(Number),
      name: "Spooks #2",
      inscriptionId: expected.inscriptionId,
      collection: "spooks",
      imageUrl: null,
      rarity: labelLevel[expected.rarity],
      rarityLabel: expected.rarity,
      rank: expected.rank,
      isStaked: true,
      stakedAt: expect.stringMatching(/Z$/),
      rewardRate: 100,
      // No schedule set: everything 100%.
      perDay: 100,
      boost: {
        rarityPercent: 100,
        tenurePercent: 100,
        combinedPercent: 100,
        tenureDays: null,
        tenureFrom: expect.stringMatching(/Z$/),
        nextStep: null,
      },
    });
    expect(answer.body.find((item: { name: string }) => item.name === "Spook Society #3")).toMatchObject({
      collection: "spook-society",
      isStaked: false,
      perDay: null,
      boost: null,
    });
    expect((await ctx.call("GET", `/api/wallet-doginals/${newWallet().address}`)).body).toEqual([]);
    expect((await ctx.call("GET", "/api/wallet-doginals/not-an-address")).status).toBe(400);

    const stats = await ctx.call("GET", `/api/stats/${holder.address}?_t=1`);
    expect(stats.body).toEqual({ stakedCount: 1, totalCount: 3, spooksCount: 2, societyCount: 1 });
  });

  it("verifies holdings: counts only listed items the address really owns", async () => {
    const holder = newWallet();
    const other = newWallet();
    const mine = await giveItems(ctx.sql, holder.address, [...spooks(10, 11), ...society(10)]);
    const theirs = await giveItems(ctx.sql, other.address, spooks(12));
    await stake(holder.address, spooks(10));
    const listed = [mine[0], mine[2], theirs[0]].map((item) => item.inscriptionId.toUpperCase().replace("I0", "i0"));
    const answer = await ctx.call("POST", "/api/verify-holdings", { address: holder.address, inscriptionIds: listed, _t: 1 });
    expect(answer.body).toEqual({ totalCount: 2, spooksCount: 1, societyCount: 1, stakedCount: 1 });
    const all = await ctx.call("POST", "/api/verify-holdings", { address: holder.address });
    expect(all.body).toEqual({ totalCount: 3, spooksCount: 2, societyCount: 1, stakedCount: 1 });
    expect((await ctx.call("POST", "/api/verify-holdings", { address: holder.address, inscriptionIds: "x" })).status).toBe(400);
    expect((await ctx.call("POST", "/api/verify-holdings", { inscriptionIds: [] })).status).toBe(400);
  });

  it("answers rewards: points, tier and rate by staked count, percentage, since, rank", async () => {
    const fresh = await ctx.call("GET", `/api/rewards/${newWallet().address}`);
    expect(fresh.body).toEqual({
      unclaimedRewards: 0,
      dailyRate: 0,
      rewardTier: 1,
      stakedCount: 0,
      totalCount: 0,
      stakingPercentage: 0,
      stakingSince: null,
      rank: 0,
      currentHour: {
        start: expect.stringMatching(/:00:00\.000Z$/),
        creditedAt: expect.stringMatching(/:00:00\.000Z$/),
        stakedCount: 0,
        tier: 1,
        percentSum: 0,
        points: 0,
      },
    });
    const holder = newWallet();
    const names = spooks(...Array.from({ length: 12 }, (_, i) => 200 + i));
    await giveItems(ctx.sql, holder.address, names);
    await stake(holder.address, names.slice(0, 10));
    await givePoints(ctx.sql, holder.address, 1234.56);
    const answer = await ctx.call("GET", `/api/rewards/${holder.address}?_t=5`);
    expect(answer.body).toMatchObject({
      unclaimedRewards: 1234.56,
      dailyRate: 1500,
      rewardTier: 3,
      stakedCount: 10,
      totalCount: 12,
      stakingPercentage: 83.33,
      stakingSince: expect.stringMatching(/Z$/),
    });
    const board = (await ctx.call("GET", "/api/leaderboard?limit=1000")).body as { address: string }[];
    expect(answer.body.rank).toBe(board.findIndex((entry) => entry.address === holder.address) + 1);
  });
});

describe("the hour under way (issue 27, item 6)", () => {
  it("is the hour of the process's one clock: a test's setClock moves the site served from the build", async () => {
    const restore = setClock(() => Date.UTC(2031, 4, 6, 7, 30));
    try {
      const answer = await ctx.call("GET", `/api/rewards/${newWallet().address}`);
      expect(answer.body.currentHour).toMatchObject({ start: "2031-05-06T07:00:00.000Z", creditedAt: "2031-05-06T08:00:00.000Z" });
    } finally {
      restore();
    }
  });

  it("counts what the hour's accrual will credit: stakes open since the hour began, at their tier; later ones wait", async () => {
    const holder = newWallet();
    const names = spooks(...Array.from({ length: 6 }, (_, i) => 300 + i));
    await giveItems(ctx.sql, holder.address, names);
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    // Five open since before the hour (tier 2), one ended during it (loses the hour), one staked during it (next hour).
    await ctx.sql`
      insert into stakes (item_id, address, started_at)
      select id, ${holder.address}, ${new Date(hour.getTime() - 3_600_000)} from items where name = any(${names.slice(0, 5)})`;
    await ctx.sql`
      insert into stakes (item_id, address, started_at)
      select id, ${holder.address}, ${hour} from items where name = ${names[5]}`;
    const answer = await ctx.call("GET", `/api/rewards/${holder.address}`);
    expect(answer.body.currentHour).toEqual({
      start: hour.toISOString(),
      creditedAt: new Date(hour.getTime() + 3_600_000).toISOString(),
      stakedCount: 6,
      tier: 2,
      percentSum: 600,
      points: (6 * 120) / 24,
    });
    // One ends now: the hour counts five (still tier 2), 25 points.
    await ctx.sql`update stakes set ended_at = ${new Date()}, end_reason = 'unstaked'
      where address = ${holder.address} and item_id = (select id from items where name = ${names[0]})`;
    const after = await ctx.call("GET", `/api/rewards/${holder.address}`);
    expect(after.body.currentHour).toMatchObject({ stakedCount: 5, tier: 2, points: 25 });
    // A stake that starts after the hour began is not counted.
    await ctx.sql`update stakes set started_at = ${new Date(hour.getTime() + 1)} where address = ${holder.address} and ended_at is null`;
    expect((await ctx.call("GET", `/api/rewards/${holder.address}`)).body.currentHour).toMatchObject({ stakedCount: 0, points: 0 });
  });
});

describe("catalogue", () => {
  it("answers every catalogue item's inscription id, sorted: the list the vote verifier checks a vote's items against", async () => {
    const answer = await ctx.call("GET", "/api/catalogue");
    expect(answer.status).toBe(200);
    const stored = await ctx.sql<{ id: string }[]>`select inscription_id as id from items`;
    expect(answer.body.inscriptionIds).toHaveLength(888 + 995);
    expect(answer.body.inscriptionIds).toEqual(stored.map((row) => row.id).sort());
  });
});

describe("leaderboard", () => {
  it("lists wallets with points, highest first, with a limit", async () => {
    const wallets = [newWallet(), newWallet(), newWallet()];
    await givePoints(ctx.sql, wallets[0].address, 1_000_001);
    await givePoints(ctx.sql, wallets[1].address, 1_000_003);
    await givePoints(ctx.sql, wallets[2].address, 1_000_002);
    const top = await ctx.call("GET", "/api/leaderboard?limit=3");
    expect(top.body).toEqual([
      { address: wallets[1].address, rewards: 1_000_003, dailyRate: 0 },
      { address: wallets[2].address, rewards: 1_000_002, dailyRate: 0 },
      { address: wallets[0].address, rewards: 1_000_001, dailyRate: 0 },
    ]);
    expect((await ctx.call("GET", `/api/rewards/${wallets[2].address}`)).body.rank).toBe(2);
    const all = (await ctx.call("GET", "/api/leaderboard")).body as { rewards: number }[];
    expect(all.length).toBeLessThanOrEqual(100);
    expect(all.every((entry, i) => entry.rewards > 0 && (i === 0 || all[i - 1].rewards >= entry.rewards))).toBe(true);
    const refusals: [string, string][] = [
      ["0", "limit must be at least 1"],
      ["-1", "limit must be at least 1"],
      ["abc", "limit must be a number"],
      ["1001", "limit must be at most 1000"],
      ["2.5", "limit must be a whole number"],
    ];
    for (const [limit, message] of refusals) {
      const refused = await ctx.call("GET", `/api/leaderboard?limit=${limit}`);
      expect([refused.status, refused.body], limit).toEqual([400, { message }]);
    }
    // An empty limit is no limit: the default list, as the page's links may send it.
    expect((await ctx.call("GET", "/api/leaderboard?limit=")).body).toEqual(all);
  });
});

describe("sign-in", () => {
  it("issues a challenge only to the admin, valid 10 minutes, and refuses a missing or bad address", async () => {
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${ctx.admin.address}`);
    expect(challenge.status).toBe(200);
    expect(Object.keys(challenge.body).sort()).toEqual(["expiresAt", "message"]);
    const issuedAt = /^Issued At: (.+)$/m.exec(challenge.body.message)![1];
    expect(Date.parse(challenge.body.expiresAt) - Date.parse(issuedAt)).toBe(10 * 60 * 1000);
    expect(challenge.body.message).toContain(`Expiration Time: ${challenge.body.expiresAt}`);
    const stranger = await ctx.call("GET", `/api/auth/challenge?address=${newWallet().address}`);
    expect([stranger.status, stranger.body]).toEqual([403, { message: "Only the admin wallet can sign in" }]);
    expect((await ctx.call("GET", "/api/auth/challenge")).status).toBe(400);
    expect((await ctx.call("GET", "/api/auth/challenge?address=not-an-address")).status).toBe(400);
  });

  it("judges where a sign-in or sign-out comes from before reading its body", async () => {
    const malformed = { raw: '{"address": ', headers: { "content-type": "application/json" } };
    const foreign = await ctx.call("POST", "/api/auth/session", undefined, { ...malformed, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toMatch(/^Cross-site request refused/);
    const plain = await ctx.call("POST", "/api/auth/session", undefined, {
      raw: '{"address": ',
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    const sameSite = await ctx.call("POST", "/api/auth/session", undefined, malformed);
    expect([sameSite.status, sameSite.body]).toEqual([400, { message: "Malformed JSON body" }]);

    const signOutPlain = await ctx.call("DELETE", "/api/auth/session", undefined, { headers: { "content-type": "text/plain" } });
    expect(signOutPlain.status).toBe(415);
    const signedOut = await ctx.call("DELETE", "/api/auth/session");
    expect([signedOut.status, signedOut.body]).toEqual([200, { success: true }]);
    expect(signedOut.headers.get("set-cookie")).toMatch(/^spooks_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
  });
});

describe("health and generic answers", () => {
  it("reports the database and the indexer's last sync and accrual", async () => {
    const before = await ctx.call("GET", "/api/health");
    expect(before.body).toMatchObject({ ok: true, database: "ok", indexer: { lastSyncAt: null, lastAccrualHour: null } });
    await ctx.sql`
      insert into sync_runs (source, started_at, finished_at, block_height, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', '2026-01-01T10:00:00Z', '2026-01-01T10:00:05Z', 5000000, 1883, 2, 1, 0)`;
    await ctx.sql`insert into accrual_runs (hour, wallets, units, source, finished_at) values ('2026-01-01T09:00:00Z', 10, 1000, 'scheduled', '2026-01-01T10:00:01Z')`;
    const after = await ctx.call("GET", "/api/health");
    expect(after.body.indexer).toMatchObject({
      lastSyncAt: "2026-01-01T10:00:05.000Z",
      lastAccrualHour: "2026-01-01T09:00:00.000Z",
      lastSyncBlockHeight: 5000000,
      lastSyncItemsChecked: 1883,
      lastSyncOwnersChanged: 2,
      lastSyncStakesEnded: 1,
      lastSyncErrors: 0,
      syncState: "ok",
      syncReason: null,
      heldBackPassesInARow: 0,
    });
    await ctx.sql`
      insert into sync_runs (source, started_at, finished_at, state, reason, block_height, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', '2026-01-01T10:01:00Z', '2026-01-01T10:01:01Z', 'rewinding', 'block count 4999956 is below the highest seen, 5000001', 4999955, 1883, 0, 0, 0)`;
    const rewinding = await ctx.call("GET", "/api/health");
    expect(rewinding.status).toBe(200);
    expect(rewinding.body.indexer).toMatchObject({
      syncState: "rewinding",
      syncReason: "block count 4999956 is below the highest seen, 5000001",
      lastAppliedSyncAt: "2026-01-01T10:00:05.000Z",
      heldBackPassesInARow: 1,
      heldBackPassesTotal: 1,
    });
  });

  it("answers JSON 404 for unknown paths, 405 for unknown methods, 413 for bodies over 1 MB", async () => {
    const unknown = await ctx.call("GET", "/api/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "Not found" });
    const wrongMethod = await ctx.call("POST", "/api/leaderboard", {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.message).toEqual(expect.any(String));
    expect((await ctx.call("PUT", "/api/giveaways", {})).status).toBe(405);
    const big = { address: newWallet().address, inscriptionIds: [], padding: "x".repeat(1024 * 1024) };
    expect((await ctx.call("POST", "/api/verify-holdings", big)).status).toBe(413);
    const malformed = await ctx.call("POST", "/api/verify-holdings", undefined, {
      raw: '{"address": ',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: "Malformed JSON body" });
    const invalidUtf8 = await ctx.call("POST", "/api/verify-holdings", undefined, { raw: new Uint8Array([0x7b, 0xff, 0x7d]) });
    expect(invalidUtf8.status).toBe(400);
  });

  it("refuses text with a NUL character (which Postgres cannot store) with 400, changing nothing", async () => {
    const wallet = newWallet();
    const nul = await ctx.call("POST", "/api/verify-holdings", { address: wallet.address, inscriptionIds: ["a\u0000b"] });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ message: "Text must not contain NUL characters" });
    // A sign-in message the wallet really signed, with a NUL in its statement: refused, the challenge stays usable.
    const admin = ctx.admin;
    const challenge = (await ctx.call("GET", `/api/auth/challenge?address=${admin.address}`)).body.message as string;
    const tampered = challenge.replace("Sign in to Spooks.", "Sign in\u0000");
    const refused = await ctx.call("POST", "/api/auth/session", {
      address: admin.address,
      message: tampered,
      signature: admin.sign(tampered),
    });
    expect(refused.status).toBe(400);
    const session = await ctx.call("POST", "/api/auth/session", {
      address: admin.address,
      message: challenge,
      signature: admin.sign(challenge),
    });
    expect(session.status).toBe(200);
    const search = await ctx.call("GET", "/api/admin/users?search=%00", undefined, { cookie: await ctx.adminCookie() });
    expect(search.status).toBe(400);
  });
});
