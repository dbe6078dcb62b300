/**
 * Hot reads stay exact (issue 36, item 1; db/queries/hot-reads.server.ts): after accruals, stakes, spends
 * (giveaway tickets), clears, refunds (a giveaway deleted) and an owner that changed with nothing logged, the
 * leaderboard (top 100 and the longest list), each wallet's rank and its rewards, as two web replicas on the
 * one database answer them over HTTP, are what a full recomputation from the ledger gives. A wallet's items (kept
 * per wallet, migration 0110) are what a read with nothing kept gives, after stakes, unstakes, items that change
 * hands, a new boost schedule and a catalogue change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hourStart, HOUR_MS, setClock } from "../../app/domain/clock.ts";
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from "../../app/domain/leaderboard.ts";
import { entryMessage, stakeMessage } from "../../app/domain/messages.ts";
import { walletDoginals } from "../../app/api/holdings.ts";
import { unitsToPoints } from "../../app/domain/rewards.ts";
import { createSql, type Sql } from "../../db/client.server.ts";
import { creditHour } from "../../db/queries/accrual.server.ts";
import { dailyRatesOf, leaderboardRank, walletItems } from "../../db/queries/holdings.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { giveItems, givePoints, minutesFromNow, newWallet, spooks, useApi, type Wallet } from "./support.ts";

const ctx = useApi();

/** A second web replica with its own pool on the same database: it sees the first's changes only through the database. */
let replica: { sql: Sql; server: TestServer };
beforeAll(async () => {
  const sql = createSql(ctx.databaseUrl, { max: 2 });
  replica = { sql, server: await startTestServer({ sql, adminAddress: ctx.admin.address }) };
});
afterAll(async () => {
  await replica.server.close();
  await replica.sql.end({ timeout: 5 });
});

const UNITS = 2400;
/** Wallets beside the actors: more than the longest list, two at each balance (ties go by address). */
const CROWD = 1050;

type Reference = { board: { address: string; units: number }[]; units: Map<string, number>; rates: Map<string, number> };

/** The full recomputation: every balance summed from the ledger, sorted, and the daily rates read afresh. */
async function recompute(): Promise<Reference> {
  const sums = await ctx.sql<{ address: string; units: number }[]>`
    select address, sum(amount)::int8 as units from points_ledger group by address`;
  const units = new Map(sums.map((row) => [row.address, Number(row.units)]));
  const board = sums
    .filter((row) => row.units > 0)
    .sort((a, b) => b.units - a.units || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .slice(0, LEADERBOARD_MAX_LIMIT);
  const rates = await dailyRatesOf(ctx.sql, [...units.keys()]);
  return { board, units, rates };
}

type Answers = { get(path: string): Promise<unknown> };

const replicas = (): [string, Answers][] =>
  [ctx.server.url, replica.server.url].map((url, i) => [
    i === 0 ? "replica 1" : "replica 2",
    { get: async (path) => (await fetch(`${url}${path}`)).json() as Promise<unknown> },
  ]);

/** The board, the ranks and the rewards of `wallets` (and the places around the list's ends), as both replicas answer them. */
async function expectExact(wallets: readonly string[]): Promise<void> {
  const { board, units, rates } = await recompute();
  const entries = board.map((row) => ({ address: row.address, rewards: unitsToPoints(row.units), dailyRate: rates.get(row.address) ?? 0 }));
  const place = (address: string) => board.findIndex((row) => row.address === address) + 1;
  const around = (at: number) => board.slice(Math.max(0, at - 3), at + 2).map((row) => row.address);
  const checked = [...new Set([...wallets, ...around(LEADERBOARD_DEFAULT_LIMIT), ...around(LEADERBOARD_MAX_LIMIT), newWallet().address])];
  for (const [name, api] of replicas()) {
    expect(await api.get("/api/leaderboard"), name).toEqual(entries.slice(0, LEADERBOARD_DEFAULT_LIMIT));
    expect(await api.get(`/api/leaderboard?limit=${LEADERBOARD_MAX_LIMIT}`), name).toEqual(entries);
    for (const address of checked) {
      const balance = units.get(address) ?? 0;
      expect(await api.get(`/api/rewards/${address}`), `${name}: ${address}`).toMatchObject({
        unclaimedRewards: unitsToPoints(balance),
        dailyRate: rates.get(address) ?? 0,
        rank: place(address),
      });
    }
  }
  // The index count the kept list replaced agrees too.
  for (const address of checked) expect(await leaderboardRank(ctx.sql, address, units.get(address) ?? 0), address).toBe(place(address));
}

function entryBody(wallet: Wallet, giveawayId: number, tickets: number) {
  const message = entryMessage(giveawayId, tickets, new Date());
  return { giveawayId, address: wallet.address, tickets, message, signature: wallet.sign(message) };
}

describe("hot reads against a full recomputation", () => {
  it("agree after accruals, stakes, spends, clears, refunds and a change of owner", async () => {
    const crowd = Array.from({ length: CROWD }, () => newWallet().address);
    await ctx.sql`
      insert into points_ledger (address, kind, amount, description, actor, created_at)
      select address, 'admin_add', amount, 'crowd', 'cli', now()
      from unnest(${crowd}::text[], ${crowd.map((_, i) => (1000 + (i % (CROWD / 2))) * UNITS)}::int8[]) as t(address, amount)`;
    // The top wallet; one about 90th; a staker and a wallet just below the longest list's end.
    const [top, ninetieth, staker, outside, seller] = Array.from({ length: 5 }, () => newWallet());
    await givePoints(ctx.sql, top.address, 100_000);
    await givePoints(ctx.sql, ninetieth.address, 1480);
    await givePoints(ctx.sql, staker.address, 1025);
    await givePoints(ctx.sql, outside.address, 1024);
    const actors = [top, ninetieth, staker, outside, seller].map((wallet) => wallet.address);
    await expectExact(actors);
    expect((await recompute()).board.findIndex((row) => row.address === staker.address)).toBe(-1);

    // Stakes open for the last two whole hours, then those hours credited: the staker climbs into the list.
    const names = spooks(...Array.from({ length: 10 }, (_, i) => 400 + i));
    await giveItems(ctx.sql, staker.address, names);
    await ctx.sql`
      insert into stakes (item_id, address, started_at)
      select id, ${staker.address}, now() - interval '1 day' from items where name = any(${names})`;
    await expectExact(actors);
    const lastHour = hourStart(new Date()).getTime() - HOUR_MS;
    for (const hour of [lastHour - HOUR_MS, lastHour]) {
      await creditHour(ctx.sql, { hour: new Date(hour), at: new Date(), actor: "system", source: "cli" });
      await expectExact(actors);
    }
    expect((await recompute()).board.findIndex((row) => row.address === staker.address)).toBeGreaterThan(-1);

    // A signed stake's own answer: its rank is counted for the wallet alone (the standings it made stale are
    // not waited for), and is the recomputation's.
    const [eleventh] = await giveItems(ctx.sql, staker.address, spooks(410));
    const message = stakeMessage("stake", eleventh.number, new Date());
    const staked = await ctx.call("POST", "/api/stake", {
      address: staker.address,
      inscriptionId: eleventh.inscriptionId,
      message,
      signature: staker.sign(message),
    });
    expect(staked.status).toBe(200);
    const afterStake = await recompute();
    expect(staked.body.rewards).toMatchObject({
      stakedCount: 11,
      unclaimedRewards: unitsToPoints(afterStake.units.get(staker.address) ?? 0),
      rank: afterStake.board.findIndex((row) => row.address === staker.address) + 1,
    });
    expect(staked.body.rewards.rank).toBeGreaterThan(0);
    await expectExact(actors);

    // A spend: tickets take the 90th wallet out of the top 100; the entry's own answer is exact too.
    const cookie = await ctx.adminCookie();
    const created = await ctx.call(
      "POST",
      "/api/giveaways",
      {
        title: "Hot",
        description: "Read fast",
        imageUrl: "/uploads/hot.png",
        pointsCost: 100,
        endDate: minutesFromNow(60).toISOString(),
        adminAddress: ctx.admin.address,
      },
      { cookie },
    );
    expect(created.status).toBe(201);
    const giveawayId = (created.body as { id: number }).id;
    const entered = await ctx.call("POST", "/api/giveaways/enter", entryBody(ninetieth, giveawayId, 2));
    expect(entered.status).toBe(200);
    const afterSpend = await recompute();
    expect(entered.body.rewards).toMatchObject({
      unclaimedRewards: 1280,
      rank: afterSpend.board.findIndex((row) => row.address === ninetieth.address) + 1,
    });
    await expectExact(actors);

    // A clear: the top wallet leaves the list and every other moves up one place.
    const cleared = await ctx.call(
      "POST",
      "/api/admin/clear-points",
      { address: top.address, adminAddress: ctx.admin.address },
      { cookie },
    );
    expect(cleared.status).toBe(200);
    await expectExact(actors);

    // A refund: the giveaway deleted before its draw gives the tickets back.
    const deleted = await ctx.call("DELETE", `/api/giveaways/${giveawayId}`, {}, { cookie });
    expect(deleted.body).toEqual({ success: true, refunded: 1 });
    await expectExact(actors);

    // An owner that changed with nothing logged: a stake that raced a move (open, on an item another wallet
    // owns, so earning nothing) starts earning when the item comes back to its staker, a wallet on the board.
    const [item] = await giveItems(ctx.sql, seller.address, spooks(420));
    await ctx.sql`insert into stakes (item_id, address, started_at) values (${item.id}, ${ninetieth.address}, now())`;
    await expectExact(actors);
    expect((await recompute()).rates.get(ninetieth.address)).toBeUndefined();
    await giveItems(ctx.sql, ninetieth.address, spooks(420));
    const moved = await recompute();
    expect(moved.rates.get(ninetieth.address)).toBeGreaterThan(0);
    expect(moved.board.findIndex((row) => row.address === ninetieth.address)).toBeLessThan(LEADERBOARD_DEFAULT_LIMIT);
    await expectExact(actors);
  }, 240_000);
});

/** The wallets' items as both replicas answer them, against a read in a transaction (where nothing kept is used). */
async function expectItemsExact(wallets: readonly string[]): Promise<void> {
  for (const address of wallets) {
    const fresh = await ctx.sql.begin((tx) => walletItems(tx, address));
    const expected: unknown = JSON.parse(JSON.stringify(walletDoginals.responses[200].schema.parse(fresh)));
    for (const [name, api] of replicas()) expect(await api.get(`/api/wallet-doginals/${address}`), `${name}: ${address}`).toEqual(expected);
  }
}

describe("a wallet's items kept per wallet", () => {
  it("agree with a fresh read after stakes, unstakes, items changing hands, a new schedule and a catalogue change", async () => {
    const [holder, buyer] = [newWallet(), newWallet()];
    const wallets = [holder.address, buyer.address];
    const items = await giveItems(ctx.sql, holder.address, spooks(430, 431, 432, 433));
    await giveItems(ctx.sql, buyer.address, spooks(434));
    await expectItemsExact(wallets);

    const signed = async (action: "stake" | "unstake", item: (typeof items)[number]) => {
      const message = stakeMessage(action, item.number, new Date());
      const answer = await ctx.call("POST", `/api/${action}`, {
        address: holder.address,
        inscriptionId: item.inscriptionId,
        message,
        signature: holder.sign(message),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    // A stake moves the holder's tier and every staked item's rate; an unstake moves them back.
    await signed("stake", items[0]);
    await expectItemsExact(wallets);
    await signed("stake", items[1]);
    await expectItemsExact(wallets);
    await signed("unstake", items[0]);
    await expectItemsExact(wallets);

    // A staked item changes hands (the indexer's upsert): the holder loses it and its stake, the buyer gains it.
    await giveItems(ctx.sql, buyer.address, [items[1].name]);
    await expectItemsExact(wallets);
    expect((await walletItems(ctx.sql, buyer.address)).map((item) => item.name).sort()).toEqual([items[1].name, ...spooks(434)].sort());

    // A schedule in force since before the hour began: every staked item's boost changes, no wallet row does.
    await signed("stake", items[2]);
    const start = new Date(hourStart(new Date()).getTime() - 40 * 24 * HOUR_MS);
    await ctx.sql`
      insert into boost_schedules (effective_from, common_percent, rare_percent, epic_percent, legendary_percent, tenure, cap_percent, created_by, created_at)
      values (${start}, 200, 200, 200, 200, ${ctx.sql.json([])}, 300, 'test', ${start})`;
    await expectItemsExact(wallets);
    expect((await walletItems(ctx.sql, holder.address)).find((item) => item.isStaked)?.boost?.combinedPercent).toBe(200);

    // A catalogue change: a new picture for one of the holder's items.
    await ctx.sql`update items set image_url = ${"https://images.example/433.png"} where id = ${items[3].id}`;
    await expectItemsExact(wallets);
  }, 120_000);
});

describe("a wallet's rewards kept per wallet", () => {
  it("answer again for the state and hour they came from, and afresh when either moves", async () => {
    const holder = newWallet();
    await givePoints(ctx.sql, holder.address, 500);
    const rewards = async () =>
      (await ctx.call("GET", `/api/rewards/${holder.address}`)).body as { unclaimedRewards: number; currentHour: { start: string } };
    const hour = hourStart(new Date()).getTime();
    const restore = setClock(() => hour + HOUR_MS / 2);
    try {
      expect((await rewards()).unclaimedRewards).toBe(500);
      // A balance row written behind the ledger's back moves no stamp (docs/decisions.md "Hot reads kept
      // current"): the kept answer is the one given, which shows that it was kept.
      await ctx.sql`update balances set units = units + ${100 * UNITS} where address = ${holder.address}`;
      expect((await rewards()).unclaimedRewards).toBe(500);
      // The next hour: read afresh (its hour under way, and the balance as the row now has it).
      setClock(() => hour + HOUR_MS + HOUR_MS / 2);
      const nextHour = await rewards();
      expect(nextHour.currentHour.start).toBe(new Date(hour + HOUR_MS).toISOString());
      expect(nextHour.unclaimedRewards).toBe(600);
      // A logged change (points added through the ledger) moves the stamp: read afresh.
      await givePoints(ctx.sql, holder.address, 50);
      expect((await rewards()).unclaimedRewards).toBe(650);
    } finally {
      restore();
      await ctx.sql`update balances set units = units - ${100 * UNITS} where address = ${holder.address}`;
    }
  });
});
