import { describe, expect, it } from "vitest";
import { applyMove, recordFirstOwners } from "../db/queries/ownership.server.ts";
import { accruePending } from "./accrual.server.ts";
import { createOrdClient } from "./ord-client.server.ts";
import { PASS_LOCKS } from "./pass-lock.server.ts";
import { indexerStatus } from "./status.server.ts";
import { syncOnce, type SyncOptions, type SyncReport } from "./sync.server.ts";
import { at, indexerConfig, openStake, testAddress, unitsOf } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

let ALICE: string;
let BOB: string;

const ctx = useIndexerTests({
  seed: 10,
  eachTest: () => {
    ALICE = testAddress(`sync-alice-${ctx.run}`);
    BOB = testAddress(`sync-bob-${ctx.run}`);
  },
  chainOwner: () => ALICE,
});

function sync(overrides: Partial<SyncOptions> = {}): Promise<SyncReport> {
  return syncOnce({ sql: ctx.db.sql, ordUrl: ctx.chain.url, config: indexerConfig(), source: "cli", wait: true, ...overrides });
}

async function ran(report: Promise<SyncReport>) {
  const result = await report;
  if (result.skipped) throw new Error("the sync was skipped");
  return result;
}

async function ownerOf(itemId: number): Promise<string | undefined> {
  const [row] = await ctx.db.sql<{ ownerAddress: string }[]>`select owner_address from ownership where item_id = ${itemId}`;
  return row?.ownerAddress;
}

async function stakeOf(stakeId: number) {
  const [row] = await ctx.db.sql<{ endedAt: Date | null; endReason: string | null }[]>`
    select ended_at, end_reason from stakes where id = ${stakeId}`;
  return row;
}

async function transfersOf(itemId: number) {
  return ctx.db.sql<{ fromAddress: string | null; toAddress: string }[]>`
    select from_address, to_address from transfers where item_id = ${itemId} order by id`;
}

describe("sync: ownership from the ord server", () => {
  it("the first pass records every owner, a transfer from nobody, and the pass with its block height", async () => {
    const report = await ran(sync());
    expect(report).toMatchObject({
      itemsChecked: 10,
      ownersChanged: 10,
      firstSeen: 10,
      stakesEnded: 0,
      errors: 0,
      blockHeight: ctx.chain.height(),
    });
    for (const item of ctx.items) expect(await ownerOf(item.id)).toBe(ALICE);
    expect(await transfersOf(ctx.items[0].id)).toEqual([{ fromAddress: null, toAddress: ALICE }]);
    const [row] = await ctx.db.sql`select satpoint, block_height, seen_at from ownership where item_id = ${ctx.items[0].id}`;
    expect(row).toEqual({ satpoint: ctx.chain.satpointOf(ctx.items[0].inscriptionId), blockHeight: ctx.chain.height(), seenAt: at(0) });
    const status = await indexerStatus(ctx.db.sql);
    expect(status.lastSync).toMatchObject({
      source: "cli",
      itemsChecked: 10,
      ownersChanged: 10,
      errors: 0,
      blockHeight: ctx.chain.height(),
    });
  });

  it("an unchanged owner writes nothing", async () => {
    await sync();
    ctx.clock.set(at(0, 5));
    ctx.chain.mine(3);
    const before = await ctx.db.sql`select * from ownership order by item_id`;
    const report = await ran(sync({ source: "scheduled", wait: false }));
    expect(report).toMatchObject({ itemsChecked: 10, ownersChanged: 0, stakesEnded: 0, errors: 0 });
    expect(await ctx.db.sql`select * from ownership order by item_id`).toEqual(before);
    expect((await ctx.db.sql`select count(*)::int as n from transfers`)[0].n).toBe(10);
    expect((await ctx.db.sql`select count(*)::int as n from sync_runs`)[0].n).toBe(2);
  });

  it("a transfer ends the stake within one sync, and the item stops earning from that hour on", async () => {
    await sync();
    const moved = await openStake(ctx.db.sql, ctx.items[0].id, ALICE, at(0));
    const kept = await openStake(ctx.db.sql, ctx.items[1].id, ALICE, at(0));
    ctx.clock.set(at(3, 30));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(3 * 2 * 10_000); // hours 0-2, two items, tier 1

    ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
    const report = await ran(sync());
    expect(report).toMatchObject({ ownersChanged: 1, stakesEnded: 1, errors: 0 });
    expect(await stakeOf(moved)).toEqual({ endedAt: at(3, 30), endReason: "transferred" });
    expect(await stakeOf(kept)).toEqual({ endedAt: null, endReason: null });
    expect(await ownerOf(ctx.items[0].id)).toBe(BOB);
    expect((await transfersOf(ctx.items[0].id)).at(-1)).toEqual({ fromAddress: ALICE, toAddress: BOB });

    ctx.clock.set(at(6));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    // Hour 3 is not whole for the moved item, so only the kept one earns in hours 3-5.
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(3 * 2 * 10_000 + 3 * 10_000);
    expect(await unitsOf(ctx.db.sql, BOB)).toBe(0);
  });

  it("a transfer back does not restart the stake", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[0].id, ALICE, at(0));
    ctx.clock.set(at(1, 10));
    ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
    await sync();
    ctx.clock.set(at(1, 20));
    ctx.chain.transfer(ctx.items[0].inscriptionId, ALICE);
    const back = await ran(sync());
    expect(back).toMatchObject({ ownersChanged: 1, stakesEnded: 0 });
    expect(await ownerOf(ctx.items[0].id)).toBe(ALICE);
    expect(await stakeOf(stake)).toEqual({ endedAt: at(1, 10), endReason: "transferred" });
    expect((await ctx.db.sql`select count(*)::int as n from stakes where item_id = ${ctx.items[0].id} and ended_at is null`)[0].n).toBe(0);
    expect((await transfersOf(ctx.items[0].id)).map((t) => t.toAddress)).toEqual([ALICE, BOB, ALICE]);
    ctx.clock.set(at(5));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(10_000); // hour 0 only
  });

  it("a flaky source (timeouts, 500s, resets, HTML, garbage, invalid answers) never changes an owner wrongly", async () => {
    await sync();
    const stakes = await Promise.all(ctx.items.slice(0, 9).map((item) => openStake(ctx.db.sql, item.id, ALICE, at(0))));
    for (const item of ctx.items.slice(0, 9)) ctx.chain.transfer(item.inscriptionId, BOB);
    const faults = ["timeout", "server-error", "reset", "html", "garbage", "invalid-address", "bad-satpoint", "wrong-id"] as const;
    faults.forEach((mode, i) => ctx.chain.failNext(mode, { inscriptionId: ctx.items[i + 1].inscriptionId, times: 5 }));
    ctx.chain.failNext("server-error", { inscriptionId: ctx.items[9].inscriptionId, times: 1 }); // transient: the retry succeeds
    const client = createOrdClient({ baseUrl: ctx.chain.url, concurrency: 4, timeoutMs: 200, retries: 1, backoffMs: 5 });

    const report = await ran(sync({ client }));
    expect(report).toMatchObject({ itemsChecked: 10, ownersChanged: 1, stakesEnded: 1, errors: faults.length });
    expect(await ownerOf(ctx.items[0].id)).toBe(BOB);
    for (const item of ctx.items.slice(1)) expect(await ownerOf(item.id)).toBe(ALICE);
    for (const stake of stakes.slice(1)) expect((await stakeOf(stake)).endedAt).toBeNull();
    expect((await ctx.db.sql`select count(*)::int as n from transfers`)[0].n).toBe(11);

    ctx.chain.clearFaults();
    const healed = await ran(sync({ client }));
    expect(healed).toMatchObject({ ownersChanged: faults.length, stakesEnded: faults.length, errors: 0 });
    for (const item of ctx.items.slice(0, 9)) expect(await ownerOf(item.id)).toBe(BOB);
  });

  it("an ord server that is down: the pass is recorded with an error and changes nothing", async () => {
    await sync();
    ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
    ctx.chain.failNext("server-error", { route: "block-count", times: 10 });
    const report = await ran(sync());
    expect(report).toMatchObject({ state: "unavailable", itemsChecked: 0, ownersChanged: 0, errors: 1, blockHeight: null });
    expect(report.reason).toMatch(/ord server unavailable/);
    expect(await ownerOf(ctx.items[0].id)).toBe(ALICE);
    expect((await indexerStatus(ctx.db.sql)).lastSync).toMatchObject({ state: "unavailable", errors: 1, blockHeight: null });
  });

  it("an open stake held by someone other than the known owner (a stake that raced a transfer) is ended", async () => {
    await sync();
    ctx.chain.transfer(ctx.items[2].inscriptionId, BOB);
    await sync();
    const raced = await openStake(ctx.db.sql, ctx.items[2].id, ALICE, at(0));
    const report = await ran(sync());
    expect(report).toMatchObject({ ownersChanged: 0, stakesEnded: 1 });
    expect((await stakeOf(raced)).endReason).toBe("transferred");
  });

  it("the same change applied twice at once is recorded once", async () => {
    await sync();
    const change = {
      itemId: ctx.items[3].id,
      address: BOB,
      kind: "p2pkh" as const,
      satpoint: `${"ab".repeat(32)}:1:0`,
      blockHeight: 7,
      at: at(0, 1),
    };
    const results = await Promise.all([applyMove(ctx.db.sql, change), applyMove(ctx.db.sql, change)]);
    expect(results.filter((r) => r.moved)).toHaveLength(1);
    expect((await transfersOf(ctx.items[3].id)).map((t) => t.toAddress)).toEqual([ALICE, BOB]);
  });

  it("first sightings recorded by two passes at once are recorded once", async () => {
    const sightings = ctx.items.map((item) => ({
      itemId: item.id,
      address: ALICE,
      kind: "p2pkh" as const,
      satpoint: ctx.chain.satpointOf(item.inscriptionId)!,
    }));
    const counts = await Promise.all([
      recordFirstOwners(ctx.db.sql, sightings, 5, at(0)),
      recordFirstOwners(ctx.db.sql, sightings, 5, at(0)),
    ]);
    expect(counts[0] + counts[1]).toBe(ctx.items.length);
    expect((await ctx.db.sql`select count(*)::int as n from transfers where from_address is null`)[0].n).toBe(ctx.items.length);
    expect((await ran(sync())).ownersChanged).toBe(0);
  });

  it("two different changes racing keep the transfer chain consistent (each from = the owner before it)", async () => {
    await sync();
    const CAROL = testAddress(`sync-carol-${ctx.run}`);
    const change = (address: string) => ({
      itemId: ctx.items[4].id,
      address,
      kind: "p2pkh" as const,
      satpoint: `${"cd".repeat(32)}:0:0`,
      blockHeight: 8,
      at: at(0, 2),
    });
    await Promise.all([applyMove(ctx.db.sql, change(BOB)), applyMove(ctx.db.sql, change(CAROL))]);
    const chainOfOwners = await transfersOf(ctx.items[4].id);
    expect(chainOfOwners).toHaveLength(3);
    expect(chainOfOwners[1].fromAddress).toBe(ALICE);
    expect(chainOfOwners[2].fromAddress).toBe(chainOfOwners[1].toAddress);
    expect(await ownerOf(ctx.items[4].id)).toBe(chainOfOwners[2].toAddress);
  });

  it("reports progress item by item", async () => {
    const seen: number[] = [];
    await sync({ onProgress: (p) => (seen.push(p.done), expect(p.total).toBe(10)) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe("sync: one pass at a time", () => {
  it("in one process, a scheduled pass skips while another runs and a CLI pass waits for it", async () => {
    ctx.chain.setLatency(30);
    const first = sync({ source: "scheduled", wait: false });
    const skipped = await sync({ source: "scheduled", wait: false });
    const waited = sync({ source: "cli", wait: true });
    expect(skipped).toEqual({ skipped: true, source: "scheduled" });
    expect((await first).skipped).toBe(false);
    expect((await waited).skipped).toBe(false);
    expect((await ctx.db.sql`select count(*)::int as n from transfers`)[0].n).toBe(10);
  });

  it("on PostgreSQL, a scheduled pass skips while another session holds the sync lock, a CLI pass waits", async ({ skip }) => {
    if (ctx.db.engine !== "postgres") skip("advisory locks do not exclude on PGlite's single backend");
    const holder = await ctx.db.sql.reserve();
    await holder`select pg_advisory_lock(${PASS_LOCKS.sync})`;
    try {
      expect(await sync({ source: "scheduled", wait: false })).toEqual({ skipped: true, source: "scheduled" });
      let done = false;
      const waiting = sync({ source: "cli", wait: true }).then((r) => ((done = true), r));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(done).toBe(false);
      await holder`select pg_advisory_unlock(${PASS_LOCKS.sync})`;
      expect((await waiting).skipped).toBe(false);
    } finally {
      holder.release();
    }
  });
});
