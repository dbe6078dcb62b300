/**
 * The indexer against a simulated chain that behaves like the real wonky-ord server: rollbacks (before,
 * during and across passes), reorgs that undo a move and settle, holders without a P2PKH address (bc1…
 * included), validate batches against a slow node, other chains and test chains, 404s of every kind and
 * servers without the validate route or reorg recovery. Real HTTP, real database.
 */
import { describe, expect, it } from "vitest";
import { encodeChainAddress, encodeWitnessAddress, hash160 } from "../app/domain/address.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { applyMove } from "../db/queries/ownership.server.ts";
import { indexerHealth } from "../db/queries/health.server.ts";
import { stakeItems } from "../db/queries/stakes.server.ts";
import { accruePending } from "./accrual.server.ts";
import { createOrdClient, type OrdClientOptions } from "./ord-client.server.ts";
import { startSimulatedChain } from "./simulated-chain.server.ts";
import { indexerStatus } from "./status.server.ts";
import { syncOnce, type SyncOptions, type SyncReport } from "./sync.server.ts";
import { at, indexerConfig, openStake, seedItems, testAddress, unitsOf } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

let ALICE: string;
let BOB: string;
let CAROL: string;
let P2SH: string;

const ctx = useIndexerTests({
  seed: 10,
  eachTest: () => {
    ALICE = testAddress(`truth-alice-${ctx.run}`);
    BOB = testAddress(`truth-bob-${ctx.run}`);
    CAROL = testAddress(`truth-carol-${ctx.run}`);
    P2SH = encodeChainAddress(hash160(new TextEncoder().encode(`truth-multisig-${ctx.run}`)), "p2sh");
  },
  chainOwner: () => ALICE,
});

function client(overrides: Partial<OrdClientOptions> = {}) {
  return createOrdClient({ baseUrl: ctx.chain.url, concurrency: 4, timeoutMs: 1000, retries: 0, backoffMs: 5, ...overrides });
}

async function sync(overrides: Partial<SyncOptions> = {}): Promise<Extract<SyncReport, { skipped: false }>> {
  const report = await syncOnce({
    sql: ctx.db.sql,
    ordUrl: ctx.chain.url,
    config: indexerConfig(),
    source: "cli",
    wait: true,
    ...overrides,
  });
  if (report.skipped) throw new Error("the sync was skipped");
  return report;
}

async function holderOf(itemId: number) {
  const [row] = await ctx.db.sql<{ ownerAddress: string | null; ownerKind: string; satpoint: string }[]>`
    select owner_address, owner_kind, satpoint from ownership where item_id = ${itemId}`;
  return row;
}

async function stakeOf(stakeId: number) {
  const [row] = await ctx.db.sql<
    { endedAt: Date | null; endReason: string | null }[]
  >`select ended_at, end_reason from stakes where id = ${stakeId}`;
  return row;
}

async function transfersOf(itemId: number) {
  return ctx.db.sql<{ fromAddress: string | null; toAddress: string | null; toKind: string }[]>`
    select from_address, to_address, to_kind from transfers where item_id = ${itemId} order by id`;
}

/** Everything a held-back pass must leave alone. */
async function snapshot() {
  return {
    ownership: await ctx.db.sql`select * from ownership order by item_id`,
    transfers: await ctx.db.sql`select count(*)::int as n from transfers`,
    stakes: await ctx.db.sql`select id, ended_at from stakes order by id`,
  };
}

/** The first pass (everything ALICE's), then BOB's real transfer of item 0 seen and staked by BOB, ALICE staking items 1-9. */
async function holdersStaking() {
  await sync();
  ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
  ctx.chain.mine(5);
  expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1 });
  const bobStake = await openStake(ctx.db.sql, ctx.items[0].id, BOB, at(0));
  const aliceStakes = await Promise.all(ctx.items.slice(1).map((item) => openStake(ctx.db.sql, item.id, ALICE, at(0))));
  return { bobStake, aliceStakes };
}

describe("rollback guard", () => {
  it("a rollback that begins before a pass: nothing changes while it lasts, then a real transfer made before it is applied once", async () => {
    const { bobStake, aliceStakes } = await holdersStaking();
    const highestSeen = ctx.chain.blockCount();
    ctx.chain.transfer(ctx.items[1].inscriptionId, CAROL); // a real transfer, not yet seen
    const tip = ctx.chain.blockCount();
    ctx.chain.beginRollback(45);
    expect(ctx.chain.blockCount()).toBe(tip - 45);
    const before = await snapshot();

    const held = await sync();
    expect(held).toMatchObject({ state: "rewinding", ownersChanged: 0, stakesEnded: 0, blockHeight: tip - 45 - 1 });
    expect(held.reason).toBe(`block count ${tip - 45} is below the highest seen, ${highestSeen}`);
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });

    ctx.chain.endRollback();
    const after = await sync();
    expect(after).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect((await holderOf(ctx.items[1].id)).ownerAddress).toBe(CAROL);
    expect((await holderOf(ctx.items[0].id)).ownerAddress).toBe(BOB);
    expect((await stakeOf(aliceStakes[0])).endReason).toBe("transferred");
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect((await sync()).ownersChanged).toBe(0);
    expect((await transfersOf(ctx.items[1].id)).map((t) => t.toAddress)).toEqual([ALICE, CAROL]);
  });

  it("a rollback that begins in the middle of a pass (after part of the items were read): the closing check holds the pass back", async () => {
    const { bobStake } = await holdersStaking();
    ctx.chain.transfer(ctx.items[1].inscriptionId, CAROL);
    ctx.chain.beginRollback(45, { afterRequests: 2 });
    const before = await snapshot();

    const held = await sync({ client: client({ validateBatchSize: 3 }) });
    expect(held.state).toBe("rewinding");
    expect(held.reason).toMatch(/^block count fell from \d+ to \d+ during the pass$/);
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });

    ctx.chain.endRollback();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect((await holderOf(ctx.items[0].id)).ownerAddress).toBe(BOB);
    expect((await holderOf(ctx.items[1].id)).ownerAddress).toBe(CAROL);
  });

  it("a rollback still going on over several passes holds each back, counted and shown, then the chain's truth is applied once", async () => {
    const { bobStake, aliceStakes } = await holdersStaking();
    ctx.chain.transfer(ctx.items[2].inscriptionId, CAROL);
    ctx.chain.beginRollback(44);
    const before = await snapshot();
    for (let pass = 0; pass < 3; pass++) {
      ctx.chain.transfer(ctx.items[3 + pass].inscriptionId, CAROL); // the real chain goes on, unseen
      expect((await sync()).state).toBe("rewinding");
    }
    expect(await snapshot()).toEqual(before);
    const status = await indexerStatus(ctx.db.sql);
    expect(status.lastSync).toMatchObject({ state: "rewinding" });
    expect(status.heldBack).toEqual({ inARow: 3, total: 3 });
    const health = await indexerHealth(ctx.db.sql);
    expect(health).toMatchObject({ syncState: "rewinding", heldBackPassesInARow: 3, heldBackPassesTotal: 3 });

    ctx.chain.endRollback();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 4, stakesEnded: 4 });
    for (const index of [2, 3, 4, 5]) expect((await holderOf(ctx.items[index].id)).ownerAddress).toBe(CAROL);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect((await stakeOf(aliceStakes[0])).endedAt).toBeNull(); // item 1 never moved
    expect((await indexerStatus(ctx.db.sql)).heldBack).toEqual({ inARow: 0, total: 3 });
    expect((await indexerHealth(ctx.db.sql)).syncState).toBe("ok");
  });

  it("a rollback that begins and ends inside one pass: the item read in its older state is read again, differs, and is held back alone", async () => {
    await sync();
    ctx.chain.transfer(ctx.items[9].inscriptionId, BOB);
    ctx.chain.mine(5);
    await sync();
    const bobStake = await openStake(ctx.db.sql, ctx.items[9].id, BOB, at(0));
    const before = await snapshot();
    // One validate request at a time, 5 pairs each: the first batch reads the truth, then the window opens
    // for the second batch (item 9: BOB refuted) and the full read of item 9 (ALICE, at her old satpoint),
    // and closes before the closing block count: the counts never show it. The second look reads BOB.
    ctx.chain.beginRollback(45, { afterRequests: 1 });
    ctx.chain.endRollback({ afterRequests: 3 });

    const pass = await sync({ client: client({ concurrency: 1, validateBatchSize: 5 }) });
    expect(pass).toMatchObject({ state: "ok", inDoubt: 1, returns: 0, ownersChanged: 0, stakesEnded: 0 });
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect(await sync()).toMatchObject({ state: "ok", inDoubt: 0, ownersChanged: 0, stakesEnded: 0 });
  });

  it("an item in doubt holds back only itself: a real move read in the same pass is applied", async () => {
    await sync();
    ctx.chain.transfer(ctx.items[9].inscriptionId, BOB);
    ctx.chain.mine(5);
    await sync();
    const bobStake = await openStake(ctx.db.sql, ctx.items[9].id, BOB, at(0));
    const aliceStake = await openStake(ctx.db.sql, ctx.items[0].id, ALICE, at(0));
    ctx.chain.transfer(ctx.items[0].inscriptionId, CAROL); // real (never read in a rollback's older state)
    // One pair per validate request, one read at a time; answers 1-9 are items 0-8 (item 0 refuted), 10 is
    // item 9, 11 item 0's full read, 12 item 9's. Item 9 is answered from a savepoint (two short rollbacks),
    // item 0 never is.
    ctx.chain.beginRollback(45, { afterRequests: 9 });
    ctx.chain.endRollback({ afterRequests: 10 });
    ctx.chain.beginRollback(45, { afterRequests: 11 });
    ctx.chain.endRollback({ afterRequests: 12 });

    const pass = await sync({ client: client({ concurrency: 1, validateBatchSize: 1 }) });
    expect(pass).toMatchObject({ state: "ok", inDoubt: 1, ownersChanged: 1, stakesEnded: 1 });
    expect((await holderOf(ctx.items[0].id)).ownerAddress).toBe(CAROL);
    expect((await stakeOf(aliceStake)).endReason).toBe("transferred");
    expect((await holderOf(ctx.items[9].id)).ownerAddress).toBe(BOB);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect(await sync()).toMatchObject({ state: "ok", inDoubt: 0, ownersChanged: 0 });
  });

  it("a server that reports an unrecoverable reorg stalls the indexer: nothing changes until it indexes again", async () => {
    await holdersStaking();
    ctx.chain.transfer(ctx.items[1].inscriptionId, CAROL);
    ctx.chain.markUnrecoverable();
    const before = await snapshot();
    const held = await sync();
    expect(held).toMatchObject({ state: "stalled", ownersChanged: 0, stakesEnded: 0 });
    expect(held.reason).toMatch(/unrecoverable reorg/);
    expect(await snapshot()).toEqual(before);
    expect((await indexerHealth(ctx.db.sql)).syncState).toBe("stalled");
  });

  it("a server from before reorg recovery that says `reorg detected` has stopped for good: the indexer stalls", async () => {
    await ctx.chain.close();
    await ctx.startChain({ reorgRecovery: false });
    await holdersStaking();
    ctx.chain.beginRollback(3); // any reorg stops it
    ctx.chain.transfer(ctx.items[1].inscriptionId, CAROL);
    const before = await snapshot();
    const held = await sync();
    expect(held).toMatchObject({ state: "stalled", ownersChanged: 0 });
    expect(await snapshot()).toEqual(before);
  });
});

describe("a reorg that undoes a move the indexer applied (healed in minutes)", () => {
  /** Item 0 staked by ALICE, moved to BOB and applied (ALICE's stake ended), BOB stakes it; then the reorg. */
  async function undoneMove() {
    await sync();
    const aliceStake = await openStake(ctx.db.sql, ctx.items[0].id, ALICE, at(0));
    const aliceSatpoint = ctx.chain.satpointOf(ctx.items[0].inscriptionId);
    ctx.clock.set(at(2, 40));
    ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    ctx.clock.set(at(2, 45));
    const bobStake = await openStake(ctx.db.sql, ctx.items[0].id, BOB, at(2, 45));
    const preReorgCount = ctx.chain.blockCount();
    // The real server's three stages: a savepoint restored (lower count, older state), the node's new
    // branch (one block longer, without the move), the re-index committed (all jumps forward at once).
    ctx.chain.beginRollback(45);
    ctx.chain.reorg({ depth: 1, undo: [ctx.items[0].inscriptionId] });
    return { aliceStake, aliceSatpoint, bobStake, preReorgCount };
  }

  it("while the server rewinds every pass is held back; the first pass after it passes its pre-reorg height accepts the settled owners", async () => {
    const { aliceStake, aliceSatpoint, bobStake, preReorgCount } = await undoneMove();
    ctx.chain.transfer(ctx.items[3].inscriptionId, CAROL); // a real transfer elsewhere, during the reorg
    const before = await snapshot();
    for (let pass = 0; pass < 2; pass++) {
      ctx.clock.set(at(2, 50 + pass));
      expect(await sync()).toMatchObject({ state: "rewinding", ownersChanged: 0 });
    }
    expect(await snapshot()).toEqual(before);

    ctx.chain.endRollback();
    expect(ctx.chain.blockCount()).toBeGreaterThan(preReorgCount);
    let passes = 0;
    let report: Awaited<ReturnType<typeof sync>>;
    do {
      passes += 1;
      ctx.clock.set(at(2, 55 + passes));
      report = await sync();
    } while ((await holderOf(ctx.items[0].id)).ownerAddress !== ALICE && passes < 10);
    expect(passes).toBe(1); // within three passes of the server passing its pre-reorg height: one
    expect(report).toMatchObject({ state: "ok", returns: 1, stakesReopened: 1, inDoubt: 0, ownersChanged: 2, stakesEnded: 1 });
    expect((await holderOf(ctx.items[0].id)).satpoint).toBe(aliceSatpoint);
    expect((await holderOf(ctx.items[3].id)).ownerAddress).toBe(CAROL); // the other transfer is not held back
    expect(await stakeOf(bobStake)).toEqual({ endedAt: at(2, 56), endReason: "transferred" });
    expect(await stakeOf(aliceStake)).toEqual({ endedAt: at(2, 40), endReason: "transferred" }); // history stays
    const [reopened] = await ctx.db.sql<{ address: string; startedAt: Date; endedAt: Date | null; reopenedFrom: number }[]>`
      select address, started_at, ended_at, reopened_from from stakes where item_id = ${ctx.items[0].id} and ended_at is null`;
    expect(reopened).toEqual({ address: ALICE, startedAt: at(2, 56), endedAt: null, reopenedFrom: aliceStake });
    expect((await transfersOf(ctx.items[0].id)).map((t) => t.toAddress)).toEqual([ALICE, BOB, ALICE]);
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, returns: 0, stakesReopened: 0 });
  });

  it("the reopened stake earns from the first whole hour after the return; hours already credited stay as they were", async () => {
    const { aliceStake } = await undoneMove();
    ctx.clock.set(at(3, 5));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    const creditedBefore = await unitsOf(ctx.db.sql, ALICE);
    expect(creditedBefore).toBe(2 * 10_000); // hours 0 and 1: the stake ended at 2:40
    ctx.chain.endRollback();
    ctx.clock.set(at(3, 10));
    expect(await sync()).toMatchObject({ returns: 1, stakesReopened: 1 });
    ctx.clock.set(at(5, 1));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    // Hour 3 began before the return (3:10): not credited for item 0; hour 4 is.
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(creditedBefore + 10_000);
    expect((await stakeOf(aliceStake)).endReason).toBe("transferred");
  });

  it("when the undone move's transaction confirms again, the item goes back to BOB and BOB's stake is reopened in turn", async () => {
    const { bobStake } = await undoneMove();
    ctx.chain.endRollback();
    ctx.clock.set(at(3, 0));
    expect(await sync()).toMatchObject({ returns: 1, stakesReopened: 1 });
    ctx.chain.reconfirm(ctx.items[0].inscriptionId); // same transaction, same satpoint as BOB had
    ctx.clock.set(at(3, 2));
    expect(await sync()).toMatchObject({ state: "ok", returns: 1, stakesReopened: 1, stakesEnded: 1 });
    const open = await ctx.db.sql<{ address: string; reopenedFrom: number }[]>`
      select address, reopened_from from stakes where item_id = ${ctx.items[0].id} and ended_at is null`;
    expect(open).toEqual([{ address: BOB, reopenedFrom: bobStake }]);
  });

  it("a holder who had not staked gets no stake back; one who had unstaked before the move stays unstaked", async () => {
    await sync();
    const unstaked = await openStake(ctx.db.sql, ctx.items[2].id, ALICE, at(0));
    await ctx.db.sql`update stakes set ended_at = ${at(0, 30)}, end_reason = 'unstaked' where id = ${unstaked}`;
    ctx.chain.transfer(ctx.items[1].inscriptionId, BOB);
    ctx.chain.transfer(ctx.items[2].inscriptionId, BOB);
    await sync();
    ctx.chain.beginRollback(45);
    ctx.chain.reorg({ depth: 2, undo: [ctx.items[1].inscriptionId, ctx.items[2].inscriptionId] });
    ctx.chain.endRollback();
    expect(await sync()).toMatchObject({ returns: 2, stakesReopened: 0, ownersChanged: 2 });
    expect(await ctx.db.sql`select 1 from stakes where item_id = ${ctx.items[1].id}`).toHaveLength(0);
    expect(await ctx.db.sql`select 1 from stakes where ended_at is null and item_id = ${ctx.items[2].id}`).toHaveLength(0);
  });
});

describe("holders without a P2PKH address", () => {
  it("a move to a P2SH address ends the stake, earns nothing the next hour, and nobody can stake it until it is back at a P2PKH address", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[2].id, ALICE, at(0));
    ctx.clock.set(at(2, 10));
    ctx.chain.transfer(ctx.items[2].inscriptionId, P2SH);
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect(await holderOf(ctx.items[2].id)).toMatchObject({ ownerAddress: P2SH, ownerKind: "p2sh" });
    expect(await stakeOf(stake)).toEqual({ endedAt: at(2, 10), endReason: "transferred" });

    ctx.clock.set(at(5));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(2 * 10_000); // hours 0 and 1 only
    await expect(stakeItems(ctx.db.sql, ALICE, [{ id: ctx.items[2].id, name: "Spooks #3" }])).rejects.toMatchObject({ status: 403 });
    await expect(stakeItems(ctx.db.sql, P2SH, [{ id: ctx.items[2].id, name: "Spooks #3" }])).rejects.toMatchObject({ status: 403 });

    ctx.chain.transfer(ctx.items[2].inscriptionId, ALICE);
    expect(await sync()).toMatchObject({ ownersChanged: 1 });
    expect(await holderOf(ctx.items[2].id)).toMatchObject({ ownerAddress: ALICE, ownerKind: "p2pkh" });
    expect(await stakeItems(ctx.db.sql, ALICE, [{ id: ctx.items[2].id, name: "Spooks #3" }])).toEqual({ count: 1, alreadyStaked: 0 });
    expect((await transfersOf(ctx.items[2].id)).map((t) => t.toKind)).toEqual(["p2pkh", "p2sh", "p2pkh"]);
  });

  it("a move to an address-less output records a holder with no address; the stake ends and it can be staked again once at a P2PKH address", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[3].id, ALICE, at(0));
    ctx.clock.set(at(1, 30));
    ctx.chain.moveToScript(ctx.items[3].inscriptionId, "p2pk");
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1, errors: 0 });
    expect(await holderOf(ctx.items[3].id)).toMatchObject({ ownerAddress: null, ownerKind: "none" });
    expect((await stakeOf(stake)).endReason).toBe("transferred");
    ctx.clock.set(at(4));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(ctx.db.sql, ALICE)).toBe(10_000); // hour 0 only
    await expect(stakeItems(ctx.db.sql, ALICE, [{ id: ctx.items[3].id, name: "Spooks #4" }])).rejects.toMatchObject({ status: 403 });

    expect(await sync()).toMatchObject({ ownersChanged: 0, errors: 0 }); // read again (no address to validate), unchanged
    ctx.chain.transfer(ctx.items[3].inscriptionId, BOB);
    expect(await sync()).toMatchObject({ ownersChanged: 1 });
    expect(await stakeItems(ctx.db.sql, BOB, [{ id: ctx.items[3].id, name: "Spooks #4" }])).toEqual({ count: 1, alreadyStaked: 0 });
  });

  it("a move to a witness program's address (bc1…) ends the stake like any holder that cannot sign; nobody can stake it there", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[5].id, ALICE, at(0));
    const bc1 = encodeWitnessAddress({ version: 0, program: hash160(new TextEncoder().encode(`truth-bc1-${ctx.run}`)) });
    ctx.clock.set(at(1, 20));
    ctx.chain.transfer(ctx.items[5].inscriptionId, bc1);
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1, errors: 0 });
    expect(await holderOf(ctx.items[5].id)).toMatchObject({ ownerAddress: bc1, ownerKind: "witness" });
    expect(await stakeOf(stake)).toEqual({ endedAt: at(1, 20), endReason: "transferred" });
    await expect(stakeItems(ctx.db.sql, ALICE, [{ id: ctx.items[5].id, name: "Spooks #6" }])).rejects.toMatchObject({ status: 403 });
    expect(await sync()).toMatchObject({ ownersChanged: 0, errors: 0, fullReads: 0 }); // validated at its bc1 address
    expect((await transfersOf(ctx.items[5].id)).map((t) => t.toKind)).toEqual(["p2pkh", "witness"]);
  });

  it("a stake opened on an item now at a P2SH address is ended by the sweep", async () => {
    await sync();
    ctx.chain.transfer(ctx.items[4].inscriptionId, P2SH);
    await sync();
    const raced = await openStake(ctx.db.sql, ctx.items[4].id, ALICE, at(0));
    expect(await sync()).toMatchObject({ ownersChanged: 0, stakesEnded: 1 });
    expect((await stakeOf(raced)).endReason).toBe("transferred");
  });
});

describe("light on the server", () => {
  it("a steady pass is one validate call and no full read; only refuted pairs are read in full", async () => {
    await sync();
    ctx.chain.resetStats();
    expect(await sync()).toMatchObject({ state: "ok", itemsChecked: 10, fullReads: 0 });
    expect(ctx.chain.stats().byRoute).toMatchObject({ validate: 1 });
    expect(ctx.chain.stats().byRoute.inscription ?? 0).toBe(0);

    ctx.chain.transfer(ctx.items[5].inscriptionId, BOB);
    ctx.chain.resetStats();
    expect(await sync()).toMatchObject({ ownersChanged: 1, fullReads: 2 }); // the move is read twice
    expect(ctx.chain.stats().byRoute.inscription).toBe(2);
  });

  it("validate batches hold at most the batch size", async () => {
    await sync();
    ctx.chain.resetStats();
    await sync({ client: client({ validateBatchSize: 4 }) });
    expect(ctx.chain.stats().byRoute.validate).toBe(3); // 4 + 4 + 2
  });

  it("an unknown id in a validate batch does not stop the other items", async () => {
    const [extra] = await seedItems(ctx.db.sql, 11).then((all) => all.slice(10));
    await sync();
    // The database knows an owner for an item the server has never heard of.
    await applyMove(ctx.db.sql, {
      itemId: extra.id,
      address: ALICE,
      kind: "p2pkh",
      satpoint: `${"7".repeat(64)}:0:0`,
      blockHeight: 1,
      at: at(0),
    });
    ctx.chain.transfer(ctx.items[6].inscriptionId, BOB);
    const report = await sync();
    expect(report).toMatchObject({ state: "ok", ownersChanged: 1, errors: 1 });
    expect((await holderOf(ctx.items[6].id)).ownerAddress).toBe(BOB);
    expect((await holderOf(extra.id)).ownerAddress).toBe(ALICE);
    await ctx.db.sql`delete from items where id = ${extra.id}`;
  });

  it("a server without /inscriptions/validate: every item is read in full, and that is logged once", async () => {
    await ctx.chain.close();
    await ctx.startChain({ validateRoute: false });
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger("indexer", { logLevel: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    await sync({ logger });
    ctx.chain.transfer(ctx.items[7].inscriptionId, BOB);
    ctx.chain.resetStats();
    expect(await sync({ logger })).toMatchObject({ state: "ok", ownersChanged: 1, fullReads: 11 }); // the move twice
    expect(ctx.chain.stats().byRoute.inscription).toBe(11);
    await sync({ logger });
    expect(lines.filter((line) => line.level === "warn" && /no \/inscriptions\/validate/.test(line.msg))).toHaveLength(1);
  });

  it("a move within the same owner stores the new satpoint and keeps the stake (seen when the item is read)", async () => {
    await ctx.chain.close();
    await ctx.startChain({ validateRoute: false });
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[8].id, ALICE, at(0));
    ctx.chain.moveWithinOwner(ctx.items[8].inscriptionId);
    expect(await sync()).toMatchObject({ ownersChanged: 0, stakesEnded: 0, satpointMoves: 1 });
    expect((await holderOf(ctx.items[8].id)).satpoint).toBe(ctx.chain.satpointOf(ctx.items[8].inscriptionId));
    expect(await stakeOf(stake)).toEqual({ endedAt: null, endReason: null });
    expect((await transfersOf(ctx.items[8].id)).map((t) => [t.fromAddress, t.toAddress])).toEqual([
      [null, ALICE],
      [ALICE, ALICE],
    ]);
  });
});

describe("answers that change nothing", () => {
  it.each(["other-chain", "other-network-address"] as const)(
    "an answer with %s changes nothing and is counted as an error",
    async (mode) => {
      await sync();
      const stake = await openStake(ctx.db.sql, ctx.items[5].id, ALICE, at(0));
      ctx.chain.transfer(ctx.items[5].inscriptionId, BOB);
      ctx.chain.failNext(mode, { inscriptionId: ctx.items[5].inscriptionId, times: 5 });
      expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, stakesEnded: 0, errors: 1 });
      expect((await holderOf(ctx.items[5].id)).ownerAddress).toBe(ALICE);
      expect((await stakeOf(stake)).endedAt).toBeNull();
    },
  );

  it("a server answering about another chain than ORD_CHAIN changes nothing: every answer is an error", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[1].id, ALICE, at(0));
    await ctx.chain.close();
    const testnetHolder = encodeChainAddress(hash160(new TextEncoder().encode(`truth-testnet-${ctx.run}`)), "p2pkh", "testnet");
    ctx.chain = await startSimulatedChain({
      owners: new Map(ctx.items.map((item) => [item.inscriptionId, testnetHolder])),
      chain: "testnet",
    });
    const before = await snapshot();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, stakesEnded: 0, errors: ctx.items.length });
    expect(await snapshot()).toEqual(before);
    expect((await stakeOf(stake)).endedAt).toBeNull();
  });

  it("an existing item's transient 404 changes nothing; the next pass applies its real move", async () => {
    await sync();
    const stake = await openStake(ctx.db.sql, ctx.items[9].id, ALICE, at(0));
    ctx.chain.transfer(ctx.items[9].inscriptionId, BOB);
    ctx.chain.failNext("not-found", { inscriptionId: ctx.items[9].inscriptionId });
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, errors: 1 });
    expect((await holderOf(ctx.items[9].id)).ownerAddress).toBe(ALICE);
    expect((await stakeOf(stake)).endedAt).toBeNull();
    expect(await sync()).toMatchObject({ ownersChanged: 1, stakesEnded: 1, errors: 0 });
  });
});

describe("the chain as it really is", () => {
  it("on regtest, holders are the 0x71 (n…) addresses wonky-ord prints: recorded, staked, moved to a 0xc4 P2SH", async () => {
    await ctx.chain.close();
    const key = (label: string) => hash160(new TextEncoder().encode(`truth-regtest-${label}-${ctx.run}`));
    const holder = encodeChainAddress(key("holder"), "p2pkh", "regtest");
    ctx.chain = await startSimulatedChain({ owners: new Map(ctx.items.map((item) => [item.inscriptionId, holder])), chain: "regtest" });
    const regtest = { config: indexerConfig({ chain: "regtest" }) };
    expect(await sync(regtest)).toMatchObject({ state: "ok", ownersChanged: ctx.items.length, errors: 0 });
    expect(await holderOf(ctx.items[0].id)).toMatchObject({ ownerAddress: holder, ownerKind: "p2pkh" });
    expect(await stakeItems(ctx.db.sql, holder, [{ id: ctx.items[0].id, name: "Spooks #1" }])).toEqual({ count: 1, alreadyStaked: 0 });
    ctx.chain.transfer(ctx.items[0].inscriptionId, encodeChainAddress(key("multisig"), "p2sh", "regtest"));
    expect(await sync(regtest)).toMatchObject({ ownersChanged: 1, stakesEnded: 1, errors: 0, fullReads: 2 });
    expect((await holderOf(ctx.items[0].id)).ownerKind).toBe("p2sh");
  });

  it("a validate 404 naming one id (its node lookup failed) leaves only that id to a full read, never every item", async () => {
    await sync();
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger("indexer", { logLevel: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    for (const mode of ["not-found", "output-not-found"] as const) {
      ctx.chain.failNext(mode, { route: "validate", inscriptionId: ctx.items[4].inscriptionId });
      ctx.chain.resetStats();
      expect(await sync({ logger }), mode).toMatchObject({ state: "ok", fullReads: 1, errors: 0, ownersChanged: 0 });
      expect(ctx.chain.stats().byRoute).toMatchObject({ validate: 2, inscription: 1 }); // the batch, then without item 4
    }
    ctx.chain.failNext("delegate-not-found", { inscriptionId: ctx.items[4].inscriptionId });
    ctx.chain.failNext("not-found", { route: "validate", inscriptionId: ctx.items[4].inscriptionId });
    expect(await sync({ logger })).toMatchObject({ state: "ok", fullReads: 1, errors: 1, ownersChanged: 0 });
    ctx.chain.failNext("proxy-not-found", { route: "validate" }); // a 404 naming nothing: its batch is read in full, this pass only
    expect(await sync({ logger })).toMatchObject({ state: "ok", fullReads: ctx.items.length, errors: 0 });
    expect(await sync({ logger })).toMatchObject({ fullReads: 0 });
    expect(lines.some((line) => /no \/inscriptions\/validate/.test(line.msg))).toBe(false);
  });

  it("against a slow node a validate batch that times out is asked again smaller: no item is read in full", async () => {
    await sync();
    ctx.chain.setNodeLatency(40); // 10 ids: 400 ms, over the 300 ms validate timeout
    ctx.chain.resetStats();
    const pass = await sync({ client: client({ validateStartBatchSize: 10, validateTimeoutMs: 300 }) });
    expect(pass).toMatchObject({ state: "ok", fullReads: 0, errors: 0, ownersChanged: 0 });
    expect(pass.validateTimeouts).toBeGreaterThanOrEqual(1);
    expect(pass.validateBatchMax).toBeLessThanOrEqual(5);
    expect(ctx.chain.stats().byRoute.inscription ?? 0).toBe(0);
  });
});
