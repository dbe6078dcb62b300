/** The audit trail of system changes to holders' standing (stakes ended by a transfer, hours credited), and its append-only rule. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "../db/queries/audit.server.ts";
import { endForeignStakes } from "../db/queries/ownership.server.ts";
import { stakeItems } from "../db/queries/stakes.server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { accruePending } from "./accrual.server.ts";
import { startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { syncOnce } from "./sync.server.ts";
import { at, indexerConfig, openStake, resetIndexerState, seedItems, testAddress, testClock, type SeededItem } from "./test-support.ts";

type Db = Awaited<ReturnType<typeof createTestDatabase>>;
let db: Db;
let items: SeededItem[];
let chain: SimulatedChain;
let clock: ReturnType<typeof testClock>;
let run = 0;
let ALICE: string;
let BOB: string;

beforeAll(async () => {
  db = await createTestDatabase();
  items = await seedItems(db.sql, 4);
});
afterAll(() => db.close());

beforeEach(async () => {
  run += 1;
  ALICE = testAddress(`audit-alice-${run}`);
  BOB = testAddress(`audit-bob-${run}`);
  await resetIndexerState(db.sql);
  clock = testClock(at(0));
  chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, ALICE])) });
});
afterEach(async () => {
  clock.restore();
  await chain.close();
});

const sync = () => syncOnce({ sql: db.sql, ordUrl: chain.url, config: indexerConfig(), source: "scheduled", wait: true });

async function rowsFor(address: string, action: string) {
  return (await listAudit(db.sql, { action, limit: 100 })).entries.filter((entry) => entry.target === address);
}

describe("audit_log", () => {
  it("is append-only: update, delete and truncate are refused by the database, to its owner too", async () => {
    await recordAudit(
      db.sql,
      { kind: "cli" },
      "points.add",
      "append-only-test",
      { points: 1 },
      { before: { points: 0 }, after: { points: 1 } },
    );
    const refusal = (query: Promise<unknown>) =>
      query.then(
        () => null,
        (error: { code?: string; message?: string }) => error,
      );
    for (const statement of [
      db.owner.sql`update audit_log set after = '{"points": 1000}' where target = 'append-only-test'`,
      db.owner.sql`delete from audit_log where target = 'append-only-test'`,
      db.owner.sql`truncate audit_log`,
    ]) {
      expect(await refusal(statement)).toMatchObject({ code: "P0001", message: "audit_log is append-only" });
    }
    const [row] = (await listAudit(db.sql, { action: "points.add" })).entries.filter((entry) => entry.target === "append-only-test");
    expect(row).toMatchObject({ actor: "cli", before: { points: 0 }, after: { points: 1 } });
  });
});

describe("system changes to holders' standing", () => {
  it("a transfer the indexer sees ends the stake and writes one system row with before → after", async () => {
    await sync();
    const stakeId = await openStake(db.sql, items[0].id, ALICE, at(0));
    clock.set(at(2, 10));
    chain.transfer(items[0].inscriptionId, BOB);
    await sync();
    const rows = await rowsFor(ALICE, "stake.transferred");
    expect(rows).toEqual([
      expect.objectContaining({
        actor: "system",
        actorAddress: null,
        action: "stake.transferred",
        details: { stakeId, item: expect.stringMatching(/#/), inscriptionId: items[0].inscriptionId },
        before: { staked: true, since: at(0).toISOString() },
        after: { staked: false, endedAt: at(2, 10).toISOString(), endReason: "transferred", holder: BOB, holderKind: "p2pkh" },
        createdAt: at(2, 10),
      }),
    ]);
  });

  it("the end-of-pass sweep and a new owner's stake each write the stakes they end", async () => {
    await sync();
    await openStake(db.sql, items[1].id, BOB, at(0)); // a stake the holder does not own
    clock.set(at(0, 5));
    expect(await endForeignStakes(db.sql, at(0, 5))).toBe(1);
    expect(await rowsFor(BOB, "stake.transferred")).toEqual([
      expect.objectContaining({ after: expect.objectContaining({ holder: ALICE }) }),
    ]);

    await openStake(db.sql, items[2].id, BOB, at(0));
    const [item] = await db.sql<{ id: number; name: string }[]>`select id, name from items where id = ${items[2].id}`;
    await stakeItems(db.sql, ALICE, [item]); // ALICE owns it: BOB's stale stake ends here
    const swept = await rowsFor(BOB, "stake.transferred");
    expect(swept).toHaveLength(2);
    expect(swept[0]).toMatchObject({
      details: { inscriptionId: items[2].inscriptionId },
      after: { holder: ALICE, endReason: "transferred" },
    });
  });

  it("each hour an accrual run credits is one row, with what the hour had before and after; a second run writes none", async () => {
    await sync();
    await openStake(db.sql, items[3].id, ALICE, at(0));
    clock.set(at(2, 30));
    await accruePending({ sql: db.sql, maxHours: 72, source: "scheduled" });
    await accruePending({ sql: db.sql, maxHours: 72, source: "scheduled" });
    const rows = (await listAudit(db.sql, { action: "accrual.hour", since: at(0), limit: 100 })).entries.filter(
      (entry) => entry.target === at(0).toISOString() || entry.target === at(1).toISOString(),
    );
    expect(rows.map((row) => [row.actor, row.target, row.before, row.after, row.details])).toEqual([
      [
        "system",
        at(1).toISOString(),
        { credited: false },
        { credited: true, wallets: 1, points: 100 / 24 },
        { source: "scheduled", wallets: 1, points: 100 / 24 },
      ],
      [
        "system",
        at(0).toISOString(),
        { credited: false },
        { credited: true, wallets: 1, points: 100 / 24 },
        { source: "scheduled", wallets: 1, points: 100 / 24 },
      ],
    ]);
  });
});
