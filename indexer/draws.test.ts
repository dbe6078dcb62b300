/**
 * Draw version 2 run by the indexer against the simulated chain: entries close when the end date passed,
 * the draw waits for six blocks on top of its block, and a reorg before then only changes which hash is
 * final (the final one is used).
 */
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifyDraw } from "../app/domain/draw.ts";
import { getGiveawayDraw } from "../db/queries/draws.server.ts";
import { createGiveaway, enterGiveaway, getGiveaway } from "../db/queries/giveaways.server.ts";
import { addPoints } from "../db/queries/points.server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { runDrawPass, selectWinners, STALLED_AFTER_MS } from "./draws.server.ts";
import { runIndexerPass } from "./pass.server.ts";
import { createOrdClient, type OrdClient } from "./ord-client.server.ts";
import { startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { at, indexerConfig, resetIndexerState, testAddress, testClock } from "./test-support.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let chain: SimulatedChain;
let client: OrdClient;
let clock: ReturnType<typeof testClock>;
let run = 0;
const SYSTEM = { kind: "system" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  chain = await startSimulatedChain({ owners: new Map() });
  client = createOrdClient({ baseUrl: chain.url, retries: 0, timeoutMs: 2000 });
});
afterAll(async () => {
  client.close();
  await chain.close();
  await db.close();
});
beforeEach(() => {
  run += 1;
  clock = testClock(at(0));
});
afterEach(() => clock.restore());

const pass = () => runDrawPass({ sql: db.sql, chain: client });

/** A version-2 giveaway ending at hour 1, entered by three wallets (3, 5 and 7 tickets). */
async function enteredGiveaway(winners = 2) {
  const giveaway = await createGiveaway(
    db.sql,
    { title: `Draw ${run}`, description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: at(1), winners },
    SYSTEM,
  );
  for (const [index, tickets] of [3, 5, 7].entries()) {
    const address = testAddress(`draws-${run}-${index}`);
    await addPoints(db.sql, { address, points: 100, actor: SYSTEM });
    await enterGiveaway(db.sql, { giveawayId: giveaway.id, address, tickets });
  }
  return giveaway.id;
}

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

function expectWaiting(report: Awaited<ReturnType<typeof pass>>, id: number) {
  expect(report.drawn).not.toContain(id);
  expect(report.waiting).toContain(id);
}

describe("the indexer's draw pass", () => {
  it("closes entries once the end date passed (not before), at the block count + 6, publishes when, and freezes them", async () => {
    const id = await enteredGiveaway();
    expect((await pass()).closed).not.toContain(id);
    expect((await getGiveaway(db.sql, id)).drawBlockHeight).toBeNull();

    clock.set(at(1));
    const count = chain.blockCount();
    expect((await pass()).closed).toEqual([id]);
    const draw = await getGiveawayDraw(db.sql, id);
    expect(draw).toMatchObject({
      status: "drawing",
      blockHeight: count + 6,
      closedAt: at(1).toISOString(),
      blockHash: null,
      seed: null,
      winnerAddresses: [],
    });
    expect(draw.entries.map((entry) => entry.tickets).sort()).toEqual([3, 5, 7]);
    // Closed: a second pass keeps the block; nobody can enter any more, not even by writing to the database.
    chain.mine(3);
    await pass();
    expect((await getGiveawayDraw(db.sql, id)).blockHeight).toBe(count + 6);
    await expect(
      db.sql`insert into giveaway_entries (giveaway_id, address, tickets, cost_units, entered_at) values (${id}, 'x', 1, 2400, now())`,
    ).rejects.toMatchObject({ code: "23514" });
    await expect(db.sql`update giveaway_draw_entries set tickets = tickets + 1 where giveaway_id = ${id}`).rejects.toMatchObject({
      code: "23514",
    });
  });

  it("draws once six blocks sit on top of the draw block, and not before", async () => {
    const id = await enteredGiveaway(2);
    clock.set(at(2));
    await pass();
    const { blockHeight } = await getGiveawayDraw(db.sql, id);
    const height = blockHeight!;
    // /block-count = height + 6: the block exists with only five on top.
    chain.mine(height + 6 - chain.blockCount());
    expect(chain.blockCount()).toBe(height + 6);
    expectWaiting(await pass(), id);
    expect((await getGiveawayDraw(db.sql, id)).seed).toBeNull();

    chain.mine(1);
    expect((await pass()).drawn).toContain(id);
    const draw = await getGiveawayDraw(db.sql, id);
    expect(draw.status).toBe("drawn");
    expect(draw.blockHash).toBe(chain.blockHash(height));
    expect(sha256Hex(draw.blockHash!)).not.toBe(draw.blockHash);
    expect(draw.winnerAddresses).toHaveLength(2);
    expect(verifyDraw(draw).outcome).toBe("verified");
    // Once only: the next passes change nothing.
    chain.mine(5);
    const next = await pass();
    expect([...next.drawn, ...next.waiting]).not.toContain(id);
    expect(await getGiveawayDraw(db.sql, id)).toEqual(draw);
  });

  it("a reorg before six confirmations changes nothing but the hash: the final one is used", async () => {
    const id = await enteredGiveaway(1);
    clock.set(at(2));
    await pass();
    const height = (await getGiveawayDraw(db.sql, id)).blockHeight!;
    chain.mine(height + 2 - chain.blockCount()); // the draw block and one on top
    const orphaned = chain.blockHash(height);
    chain.reorg({ depth: 2, undo: [], longerBy: 1 }); // the draw block is replaced by another branch's
    const final = chain.blockHash(height);
    expect(final).not.toBe(orphaned);
    expectWaiting(await pass(), id);
    chain.mine(height + 7 - chain.blockCount());
    expect((await pass()).drawn).toContain(id);
    const draw = await getGiveawayDraw(db.sql, id);
    expect(draw.blockHeight).toBe(height);
    expect(draw.blockHash).toBe(final);
    expect(verifyDraw(draw).outcome).toBe("verified");
  });

  it("selecting winners closes entries at once; with no entries the draw has no winner", async () => {
    const giveaway = await createGiveaway(
      db.sql,
      { title: `Empty ${run}`, description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: at(5), winners: 3 },
      SYSTEM,
    );
    const count = chain.blockCount();
    expect(await selectWinners(db.sql, client, giveaway.id, SYSTEM)).toMatchObject({
      version: 2,
      status: "drawing",
      blockHeight: count + 6,
      closedAt: at(0).toISOString(),
      winnerAddresses: [],
    });
    chain.mine(13);
    expect((await pass()).drawn).toContain(giveaway.id);
    const draw = await getGiveawayDraw(db.sql, giveaway.id);
    expect(draw).toMatchObject({ status: "drawn", entries: [], winnerAddresses: [] });
    expect(verifyDraw(draw).outcome).toBe("verified");
  });
});

describe("a lagging, stalled or rewinding ord server cannot hand the operator the winner (DECISIONS 'Draw version 2')", () => {
  /** The indexer service's pass: the ownership sync (which records the block count it saw), then draws. */
  const servicePass = async () =>
    (await runIndexerPass({ sql: db.sql, ordUrl: chain.url, config: indexerConfig(), source: "scheduled", wait: true })).draws!;

  afterEach(async () => {
    chain.setIndexLag(0);
    chain.resumeIndexing();
    chain.endRollback();
    await resetIndexerState(db.sql);
  });

  it("an index six blocks behind its node: the draw block fixed at close is one nobody has mined yet", async () => {
    chain.setIndexLag(6);
    const id = await enteredGiveaway();
    clock.set(at(1));
    expect((await pass()).closed).toEqual([id]);
    const { blockHeight, closedAt } = await getGiveawayDraw(db.sql, id);
    expect(closedAt).toBe(at(1).toISOString());
    // The node's tip is the chain's real height: the draw block lies beyond it.
    expect(blockHeight).toBe(chain.height() + 1);
  });

  it("a stalled ord server (no new block for 10 minutes): the close is deferred, Select Winner answers 409, the next healthy pass closes", async () => {
    expect((await servicePass()).closed).toEqual([]);
    const id = await enteredGiveaway();
    chain.stallIndexing();
    chain.mine(30); // the node mines on; the index does not follow
    clock.set(new Date(at(0).getTime() + STALLED_AFTER_MS + 60_000));
    await db.sql`update giveaways set end_date = ${at(0, 5)} where id = ${id}`;
    expect(await servicePass()).toMatchObject({ closed: [], deferred: [id] });
    await expect(selectWinners(db.sql, client, id, SYSTEM)).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/^Entries stay open: the ord server is stalled \(no new block for 11 minutes/),
    });
    expect((await getGiveaway(db.sql, id)).drawBlockHeight).toBeNull();

    chain.resumeIndexing();
    expect((await servicePass()).closed).toEqual([id]);
    expect((await getGiveawayDraw(db.sql, id)).blockHeight).toBe(chain.blockCount() + 6);
  });

  it("a rewinding ord server: the close waits for the next pass that is not held back", async () => {
    chain.mine(2);
    await servicePass();
    const id = await enteredGiveaway();
    clock.set(at(0, 5));
    await db.sql`update giveaways set end_date = ${at(0, 1)} where id = ${id}`;
    chain.beginRollback(3);
    expect(await servicePass()).toMatchObject({ closed: [], deferred: [id] });
    await expect(selectWinners(db.sql, client, id, SYSTEM)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining("the ord server is rewinding"),
    });
    chain.endRollback();
    chain.mine(1);
    expect((await servicePass()).closed).toEqual([id]);
    expect((await getGiveawayDraw(db.sql, id)).blockHeight).toBe(chain.blockCount() + 6);
  });

  it("a giveaway closed before this rule (at B + 1) keeps its block and is drawn and verified with it", async () => {
    const id = await enteredGiveaway(2);
    const height = chain.blockCount() + 1;
    // As the close wrote it before issue 23: frozen entries, then the block at B + 1.
    const live = await db.sql<{ address: string; tickets: number }[]>`
      select address, sum(tickets)::int as tickets from giveaway_entries where giveaway_id = ${id} group by address order by address collate "C"`;
    for (const [ordinal, entry] of live.entries()) {
      await db.sql`insert into giveaway_draw_entries (giveaway_id, ordinal, address, tickets) values (${id}, ${ordinal}, ${entry.address}, ${entry.tickets})`;
    }
    await db.sql`update giveaways set closed_at = ${at(0)}, draw_block_height = ${height} where id = ${id}`;
    chain.mine(height + 7 - chain.blockCount());
    expect((await pass()).drawn).toContain(id);
    const draw = await getGiveawayDraw(db.sql, id);
    expect(draw).toMatchObject({ status: "drawn", blockHeight: height, closedAt: at(0).toISOString(), blockHash: chain.blockHash(height) });
    expect(verifyDraw(draw).outcome).toBe("verified");
  });
});
