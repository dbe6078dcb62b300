/** The audit trail of system changes to holders' standing (stakes ended by a transfer, hours credited), and its append-only rule. */
import { describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "../db/queries/audit.server.ts";
import { endForeignStakes } from "../db/queries/ownership.server.ts";
import { stakeItems } from "../db/queries/stakes.server.ts";
import { accruePending } from "./accrual.server.ts";
import { syncOnce } from "./sync.server.ts";
import { at, indexerConfig, openStake, testAddress } from "./test-support.ts";
import { useIndexerTests } from "./testing/indexer-tests.ts";

let ALICE: string;
let BOB: string;

const ctx = useIndexerTests({
  seed: 4,
  eachTest: () => {
    ALICE = testAddress(`audit-alice-${ctx.run}`);
    BOB = testAddress(`audit-bob-${ctx.run}`);
  },
  chainOwner: () => ALICE,
});

const sync = () => syncOnce({ sql: ctx.db.sql, ordUrl: ctx.chain.url, config: indexerConfig(), source: "scheduled", wait: true });

async function rowsFor(address: string, action: string) {
  return (await listAudit(ctx.db.sql, { action, limit: 100 })).entries.filter((entry) => entry.target === address);
}

describe("audit_log", () => {
  it("is append-only: update, delete and truncate are refused by the database, to its owner too", async () => {
    await recordAudit(
      ctx.db.sql,
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
      ctx.db.owner.sql`update audit_log set after = '{"points": 1000}' where target = 'append-only-test'`,
      ctx.db.owner.sql`delete from audit_log where target = 'append-only-test'`,
      ctx.db.owner.sql`truncate audit_log`,
    ]) {
      expect(await refusal(statement)).toMatchObject({ code: "P0001", message: "audit_log is append-only" });
    }
    const [row] = (await listAudit(ctx.db.sql, { action: "points.add" })).entries.filter((entry) => entry.target === "append-only-test");
    expect(row).toMatchObject({ actor: "cli", before: { points: 0 }, after: { points: 1 } });
  });
});

describe("system changes to holders' standing", () => {
  it("a transfer the indexer sees ends the stake and writes one system row with before → after", async () => {
    await sync();
    const stakeId = await openStake(ctx.db.sql, ctx.items[0].id, ALICE, at(0));
    ctx.clock.set(at(2, 10));
    ctx.chain.transfer(ctx.items[0].inscriptionId, BOB);
    await sync();
    const rows = await rowsFor(ALICE, "stake.transferred");
    expect(rows).toEqual([
      expect.objectContaining({
        actor: "system",
        actorAddress: null,
        action: "stake.transferred",
        details: { stakeId, item: expect.stringMatching(/#/), inscriptionId: ctx.items[0].inscriptionId },
        before: { staked: true, since: at(0).toISOString() },
        after: { staked: false, endedAt: at(2, 10).toISOString(), endReason: "transferred", holder: BOB, holderKind: "p2pkh" },
        createdAt: at(2, 10),
      }),
    ]);
  });

  it("the end-of-pass sweep and a new owner's stake each write the stakes they end", async () => {
    await sync();
    await openStake(ctx.db.sql, ctx.items[1].id, BOB, at(0)); // a stake the holder does not own
    ctx.clock.set(at(0, 5));
    expect(await endForeignStakes(ctx.db.sql, at(0, 5))).toBe(1);
    expect(await rowsFor(BOB, "stake.transferred")).toEqual([
      expect.objectContaining({ after: expect.objectContaining({ holder: ALICE }) }),
    ]);

    await openStake(ctx.db.sql, ctx.items[2].id, BOB, at(0));
    const [item] = await ctx.db.sql<{ id: number; name: string }[]>`select id, name from items where id = ${ctx.items[2].id}`;
    await stakeItems(ctx.db.sql, ALICE, [item]); // ALICE owns it: BOB's stale stake ends here
    const swept = await rowsFor(BOB, "stake.transferred");
    expect(swept).toHaveLength(2);
    expect(swept[0]).toMatchObject({
      details: { inscriptionId: ctx.items[2].inscriptionId },
      after: { holder: ALICE, endReason: "transferred" },
    });
  });

  it("each hour an accrual run credits is one row, with what the hour had before and after; a second run writes none", async () => {
    await sync();
    await openStake(ctx.db.sql, ctx.items[3].id, ALICE, at(0));
    ctx.clock.set(at(2, 30));
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    await accruePending({ sql: ctx.db.sql, maxHours: 72, source: "scheduled" });
    const rows = (await listAudit(ctx.db.sql, { action: "accrual.hour", since: at(0), limit: 100 })).entries.filter(
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
