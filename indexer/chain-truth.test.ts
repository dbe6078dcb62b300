/**
 * The indexer against a simulated chain that behaves like the real wonky-ord server: rollbacks (before,
 * during and across passes), holders without a P2PKH address, validate batches, other chains, transient
 * 404s and servers without the validate route. Real HTTP, real database.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encodeChainAddress, hash160 } from "../app/domain/address.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { applyMove } from "../db/queries/ownership.server.ts";
import { indexerHealth } from "../db/queries/health.server.ts";
import { stakeItems } from "../db/queries/stakes.server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { accruePending } from "./accrual.server.ts";
import { createOrdClient, type OrdClientOptions } from "./ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { indexerStatus } from "./status.server.ts";
import { REORG_REACH_BLOCKS, syncOnce, type SyncOptions, type SyncReport } from "./sync.server.ts";
import {
  at,
  indexerConfig,
  openStake,
  resetIndexerState,
  seedItems,
  testAddress,
  testClock,
  unitsOf,
  type SeededItem,
} from "./test-support.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let items: SeededItem[];
let chain: SimulatedChain;
let clock: ReturnType<typeof testClock>;
let run = 0;
let ALICE: string;
let BOB: string;
let CAROL: string;
let P2SH: string;

beforeAll(async () => {
  db = await createTestDatabase();
  items = await seedItems(db.sql, 10);
});
afterAll(() => db.close());

async function startChain(options: Partial<Parameters<typeof startSimulatedChain>[0]> = {}) {
  chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, ALICE])), ...options });
}

beforeEach(async () => {
  run += 1;
  ALICE = testAddress(`truth-alice-${run}`);
  BOB = testAddress(`truth-bob-${run}`);
  CAROL = testAddress(`truth-carol-${run}`);
  P2SH = encodeChainAddress(hash160(new TextEncoder().encode(`truth-multisig-${run}`)), "p2sh");
  await resetIndexerState(db.sql);
  clock = testClock(at(0));
  await startChain();
});
afterEach(async () => {
  clock.restore();
  await chain.close();
});

function client(overrides: Partial<OrdClientOptions> = {}) {
  return createOrdClient({ baseUrl: chain.url, concurrency: 4, timeoutMs: 1000, retries: 0, backoffMs: 5, ...overrides });
}

async function sync(overrides: Partial<SyncOptions> = {}): Promise<Extract<SyncReport, { skipped: false }>> {
  const report = await syncOnce({ sql: db.sql, ordUrl: chain.url, config: indexerConfig(), source: "cli", wait: true, ...overrides });
  if (report.skipped) throw new Error("the sync was skipped");
  return report;
}

async function holderOf(itemId: number) {
  const [row] = await db.sql<{ ownerAddress: string | null; ownerKind: string; satpoint: string }[]>`
    select owner_address, owner_kind, satpoint from ownership where item_id = ${itemId}`;
  return row;
}

async function stakeOf(stakeId: number) {
  const [row] = await db.sql<
    { endedAt: Date | null; endReason: string | null }[]
  >`select ended_at, end_reason from stakes where id = ${stakeId}`;
  return row;
}

async function transfersOf(itemId: number) {
  return db.sql<{ fromAddress: string | null; toAddress: string | null; toKind: string }[]>`
    select from_address, to_address, to_kind from transfers where item_id = ${itemId} order by id`;
}

/** Everything a held-back pass must leave alone. */
async function snapshot() {
  return {
    ownership: await db.sql`select * from ownership order by item_id`,
    transfers: await db.sql`select count(*)::int as n from transfers`,
    stakes: await db.sql`select id, ended_at from stakes order by id`,
  };
}

/** The first pass (everything ALICE's), then BOB's real transfer of item 0 seen and staked by BOB, ALICE staking items 1-9. */
async function holdersStaking() {
  await sync();
  chain.transfer(items[0].inscriptionId, BOB);
  chain.mine(5);
  expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1 });
  const bobStake = await openStake(db.sql, items[0].id, BOB, at(0));
  const aliceStakes = await Promise.all(items.slice(1).map((item) => openStake(db.sql, item.id, ALICE, at(0))));
  return { bobStake, aliceStakes };
}

describe("rollback guard", () => {
  it("a rollback that begins before a pass: nothing changes while it lasts, then a real transfer made before it is applied once", async () => {
    const { bobStake, aliceStakes } = await holdersStaking();
    const highestSeen = chain.blockCount();
    chain.transfer(items[1].inscriptionId, CAROL); // a real transfer, not yet seen
    const tip = chain.blockCount();
    chain.beginRollback(45);
    expect(chain.blockCount()).toBe(tip - 45);
    const before = await snapshot();

    const held = await sync();
    expect(held).toMatchObject({ state: "rewinding", ownersChanged: 0, stakesEnded: 0, blockHeight: tip - 45 - 1 });
    expect(held.reason).toBe(`block count ${tip - 45} is below the highest seen, ${highestSeen}`);
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });

    chain.endRollback();
    const after = await sync();
    expect(after).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect((await holderOf(items[1].id)).ownerAddress).toBe(CAROL);
    expect((await holderOf(items[0].id)).ownerAddress).toBe(BOB);
    expect((await stakeOf(aliceStakes[0])).endReason).toBe("transferred");
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect((await sync()).ownersChanged).toBe(0);
    expect((await transfersOf(items[1].id)).map((t) => t.toAddress)).toEqual([ALICE, CAROL]);
  });

  it("a rollback that begins in the middle of a pass (after part of the items were read): the closing check holds the pass back", async () => {
    const { bobStake } = await holdersStaking();
    chain.transfer(items[1].inscriptionId, CAROL);
    chain.beginRollback(45, { afterRequests: 2 });
    const before = await snapshot();

    const held = await sync({ client: client({ validateBatchSize: 3 }) });
    expect(held.state).toBe("rewinding");
    expect(held.reason).toMatch(/^block count fell from \d+ to \d+ during the pass$/);
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });

    chain.endRollback();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect((await holderOf(items[0].id)).ownerAddress).toBe(BOB);
    expect((await holderOf(items[1].id)).ownerAddress).toBe(CAROL);
  });

  it("a rollback still going on over several passes holds each back, counted and shown, then the chain's truth is applied once", async () => {
    const { bobStake, aliceStakes } = await holdersStaking();
    chain.transfer(items[2].inscriptionId, CAROL);
    chain.beginRollback(44);
    const before = await snapshot();
    for (let pass = 0; pass < 3; pass++) {
      chain.transfer(items[3 + pass].inscriptionId, CAROL); // the real chain goes on, unseen
      expect((await sync()).state).toBe("rewinding");
    }
    expect(await snapshot()).toEqual(before);
    const status = await indexerStatus(db.sql);
    expect(status.lastSync).toMatchObject({ state: "rewinding" });
    expect(status.heldBack).toEqual({ inARow: 3, total: 3 });
    const health = await indexerHealth(db.sql);
    expect(health).toMatchObject({ syncState: "rewinding", heldBackPassesInARow: 3, heldBackPassesTotal: 3 });

    chain.endRollback();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 4, stakesEnded: 4 });
    for (const index of [2, 3, 4, 5]) expect((await holderOf(items[index].id)).ownerAddress).toBe(CAROL);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect((await stakeOf(aliceStakes[0])).endedAt).toBeNull(); // item 1 never moved
    expect((await indexerStatus(db.sql)).heldBack).toEqual({ inARow: 0, total: 3 });
    expect((await indexerHealth(db.sql)).syncState).toBe("ok");
  });

  it("a rollback that begins and ends inside one pass: an item read back at a satpoint it left holds the pass back", async () => {
    await sync();
    chain.transfer(items[9].inscriptionId, BOB);
    chain.mine(5);
    await sync();
    const bobStake = await openStake(db.sql, items[9].id, BOB, at(0));
    const before = await snapshot();
    // One validate request at a time, 5 pairs each: the first batch reads the truth, then the window opens
    // for the second batch (item 9: BOB refuted) and the full read of item 9 (ALICE, at her old satpoint),
    // and closes before the closing block count: the counts never show it.
    chain.beginRollback(45, { afterRequests: 1 });
    chain.endRollback({ afterRequests: 3 });

    const held = await sync({ client: client({ concurrency: 1, validateBatchSize: 5 }) });
    expect(held.state).toBe("rewinding");
    expect(held.reason).toMatch(
      new RegExp(`^stale answer: item ${items[9].id} is back at satpoint [0-9a-f]{64}:\\d+:\\d+, which it left at height \\d+$`),
    );
    expect(await snapshot()).toEqual(before);
    expect(await stakeOf(bobStake)).toEqual({ endedAt: null, endReason: null });
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, stakesEnded: 0 });
  });

  describe("an item read back at a satpoint it left", () => {
    /** Item 0 seen at ALICE's satpoint, then (as far as the database knows) moved to BOB at `leftAt`. */
    async function leftAliceAt(leftAt: (height: number) => number) {
      await sync();
      chain.mine(REORG_REACH_BLOCKS + 10);
      await sync();
      const height = chain.height();
      await applyMove(db.sql, {
        itemId: items[0].id,
        address: BOB,
        kind: "p2pkh",
        satpoint: `${"9".repeat(64)}:0:0`,
        blockHeight: leftAt(height),
        at: at(0),
      });
    }

    it("within a rollback's reach: the answer is stale and the pass is held back", async () => {
      await leftAliceAt((height) => height - REORG_REACH_BLOCKS + 2);
      const report = await sync();
      expect(report.state).toBe("rewinding");
      expect(report.reason).toMatch(/^stale answer/);
      expect((await holderOf(items[0].id)).ownerAddress).toBe(BOB);
    });

    it(`beyond a rollback's reach (${REORG_REACH_BLOCKS} blocks): a real reorg undid the move, and the answer is applied`, async () => {
      await leftAliceAt((height) => height - REORG_REACH_BLOCKS - 1);
      expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1 });
      expect((await holderOf(items[0].id)).ownerAddress).toBe(ALICE);
    });
  });

  it("a server that reports an unrecoverable reorg stalls the indexer: nothing changes until it indexes again", async () => {
    await holdersStaking();
    chain.transfer(items[1].inscriptionId, CAROL);
    chain.markUnrecoverable();
    const before = await snapshot();
    const held = await sync();
    expect(held).toMatchObject({ state: "stalled", ownersChanged: 0, stakesEnded: 0 });
    expect(held.reason).toMatch(/unrecoverable reorg/);
    expect(await snapshot()).toEqual(before);
    expect((await indexerHealth(db.sql)).syncState).toBe("stalled");
  });
});

describe("holders without a P2PKH address", () => {
  it("a move to a P2SH address ends the stake, earns nothing the next hour, and nobody can stake it until it is back at a P2PKH address", async () => {
    await sync();
    const stake = await openStake(db.sql, items[2].id, ALICE, at(0));
    clock.set(at(2, 10));
    chain.transfer(items[2].inscriptionId, P2SH);
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1 });
    expect(await holderOf(items[2].id)).toMatchObject({ ownerAddress: P2SH, ownerKind: "p2sh" });
    expect(await stakeOf(stake)).toEqual({ endedAt: at(2, 10), endReason: "transferred" });

    clock.set(at(5));
    await accruePending({ sql: db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(db.sql, ALICE)).toBe(2 * 10_000); // hours 0 and 1 only
    await expect(stakeItems(db.sql, ALICE, [{ id: items[2].id, name: "Spooks #3" }])).rejects.toMatchObject({ status: 403 });
    await expect(stakeItems(db.sql, P2SH, [{ id: items[2].id, name: "Spooks #3" }])).rejects.toMatchObject({ status: 403 });

    chain.transfer(items[2].inscriptionId, ALICE);
    expect(await sync()).toMatchObject({ ownersChanged: 1 });
    expect(await holderOf(items[2].id)).toMatchObject({ ownerAddress: ALICE, ownerKind: "p2pkh" });
    expect(await stakeItems(db.sql, ALICE, [{ id: items[2].id, name: "Spooks #3" }])).toEqual({ count: 1, alreadyStaked: 0 });
    expect((await transfersOf(items[2].id)).map((t) => t.toKind)).toEqual(["p2pkh", "p2sh", "p2pkh"]);
  });

  it("a move to an address-less output records a holder with no address; the stake ends and it can be staked again once at a P2PKH address", async () => {
    await sync();
    const stake = await openStake(db.sql, items[3].id, ALICE, at(0));
    clock.set(at(1, 30));
    chain.moveToScript(items[3].inscriptionId, "p2pk");
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1, errors: 0 });
    expect(await holderOf(items[3].id)).toMatchObject({ ownerAddress: null, ownerKind: "none" });
    expect((await stakeOf(stake)).endReason).toBe("transferred");
    clock.set(at(4));
    await accruePending({ sql: db.sql, maxHours: 72, source: "scheduled" });
    expect(await unitsOf(db.sql, ALICE)).toBe(10_000); // hour 0 only
    await expect(stakeItems(db.sql, ALICE, [{ id: items[3].id, name: "Spooks #4" }])).rejects.toMatchObject({ status: 403 });

    expect(await sync()).toMatchObject({ ownersChanged: 0, errors: 0 }); // read again (no address to validate), unchanged
    chain.transfer(items[3].inscriptionId, BOB);
    expect(await sync()).toMatchObject({ ownersChanged: 1 });
    expect(await stakeItems(db.sql, BOB, [{ id: items[3].id, name: "Spooks #4" }])).toEqual({ count: 1, alreadyStaked: 0 });
  });

  it("a stake opened on an item now at a P2SH address is ended by the sweep", async () => {
    await sync();
    chain.transfer(items[4].inscriptionId, P2SH);
    await sync();
    const raced = await openStake(db.sql, items[4].id, ALICE, at(0));
    expect(await sync()).toMatchObject({ ownersChanged: 0, stakesEnded: 1 });
    expect((await stakeOf(raced)).endReason).toBe("transferred");
  });
});

describe("light on the server", () => {
  it("a steady pass is one validate call and no full read; only refuted pairs are read in full", async () => {
    await sync();
    chain.resetStats();
    expect(await sync()).toMatchObject({ state: "ok", itemsChecked: 10, fullReads: 0 });
    expect(chain.stats().byRoute).toMatchObject({ validate: 1 });
    expect(chain.stats().byRoute.inscription ?? 0).toBe(0);

    chain.transfer(items[5].inscriptionId, BOB);
    chain.resetStats();
    expect(await sync()).toMatchObject({ ownersChanged: 1, fullReads: 1 });
    expect(chain.stats().byRoute.inscription).toBe(1);
  });

  it("validate batches hold at most the batch size", async () => {
    await sync();
    chain.resetStats();
    await sync({ client: client({ validateBatchSize: 4 }) });
    expect(chain.stats().byRoute.validate).toBe(3); // 4 + 4 + 2
  });

  it("an unknown id in a validate batch does not stop the other items", async () => {
    const [extra] = await seedItems(db.sql, 11).then((all) => all.slice(10));
    await sync();
    // The database knows an owner for an item the server has never heard of.
    await applyMove(db.sql, {
      itemId: extra.id,
      address: ALICE,
      kind: "p2pkh",
      satpoint: `${"7".repeat(64)}:0:0`,
      blockHeight: 1,
      at: at(0),
    });
    chain.transfer(items[6].inscriptionId, BOB);
    const report = await sync();
    expect(report).toMatchObject({ state: "ok", ownersChanged: 1, errors: 1 });
    expect((await holderOf(items[6].id)).ownerAddress).toBe(BOB);
    expect((await holderOf(extra.id)).ownerAddress).toBe(ALICE);
    await db.sql`delete from items where id = ${extra.id}`;
  });

  it("a server without /inscriptions/validate: every item is read in full, and that is logged once", async () => {
    await chain.close();
    await startChain({ validateRoute: false });
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger("indexer", { logLevel: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    await sync({ logger });
    chain.transfer(items[7].inscriptionId, BOB);
    chain.resetStats();
    expect(await sync({ logger })).toMatchObject({ state: "ok", ownersChanged: 1, fullReads: 10 });
    expect(chain.stats().byRoute.inscription).toBe(10);
    await sync({ logger });
    expect(lines.filter((line) => line.level === "warn" && /no \/inscriptions\/validate/.test(line.msg))).toHaveLength(1);
  });

  it("a move within the same owner stores the new satpoint and keeps the stake (seen when the item is read)", async () => {
    await chain.close();
    await startChain({ validateRoute: false });
    await sync();
    const stake = await openStake(db.sql, items[8].id, ALICE, at(0));
    chain.moveWithinOwner(items[8].inscriptionId);
    expect(await sync()).toMatchObject({ ownersChanged: 0, stakesEnded: 0, satpointMoves: 1 });
    expect((await holderOf(items[8].id)).satpoint).toBe(chain.satpointOf(items[8].inscriptionId));
    expect(await stakeOf(stake)).toEqual({ endedAt: null, endReason: null });
    expect((await transfersOf(items[8].id)).map((t) => [t.fromAddress, t.toAddress])).toEqual([
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
      const stake = await openStake(db.sql, items[5].id, ALICE, at(0));
      chain.transfer(items[5].inscriptionId, BOB);
      chain.failNext(mode, { inscriptionId: items[5].inscriptionId, times: 5 });
      expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, stakesEnded: 0, errors: 1 });
      expect((await holderOf(items[5].id)).ownerAddress).toBe(ALICE);
      expect((await stakeOf(stake)).endedAt).toBeNull();
    },
  );

  it("a server answering about another chain than ORD_CHAIN changes nothing: every answer is an error", async () => {
    await sync();
    const stake = await openStake(db.sql, items[1].id, ALICE, at(0));
    await chain.close();
    const testnetHolder = encodeChainAddress(hash160(new TextEncoder().encode(`truth-testnet-${run}`)), "p2pkh", "testnet");
    chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, testnetHolder])), chain: "testnet" });
    const before = await snapshot();
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, stakesEnded: 0, errors: items.length });
    expect(await snapshot()).toEqual(before);
    expect((await stakeOf(stake)).endedAt).toBeNull();
  });

  it("an existing item's transient 404 changes nothing; the next pass applies its real move", async () => {
    await sync();
    const stake = await openStake(db.sql, items[9].id, ALICE, at(0));
    chain.transfer(items[9].inscriptionId, BOB);
    chain.failNext("not-found", { inscriptionId: items[9].inscriptionId });
    expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 0, errors: 1 });
    expect((await holderOf(items[9].id)).ownerAddress).toBe(ALICE);
    expect((await stakeOf(stake)).endedAt).toBeNull();
    expect(await sync()).toMatchObject({ ownersChanged: 1, stakesEnded: 1, errors: 0 });
  });
});
