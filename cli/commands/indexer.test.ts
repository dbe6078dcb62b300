import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HOUR_MS, hourStart, now } from "../../app/domain/clock.ts";
import { hourlyCreditUnits, unitsToPoints } from "../../app/domain/rewards.ts";
import { verifyDraw } from "../../app/domain/draw.ts";
import { getGiveawayDraw } from "../../db/queries/draws.server.ts";
import { createGiveaway, enterGiveaway } from "../../db/queries/giveaways.server.ts";
import { addPoints, getBalanceUnits } from "../../db/queries/points.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import { randomAddress, stakeDemoItems } from "../testing/fixtures.ts";
import { cliEnv, runCli, runJson, type CliEnv } from "../testing/run-cli.ts";

// Each test runs several CLI processes, each starting Node, tsx and the database: more than the suite's 30 s on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: SimulatedChain;
let env: CliEnv;
const alice = randomAddress();
const bob = randomAddress();
const thisHour = hourStart(now());
const hoursAgo = (n: number) => new Date(thisHour.getTime() - n * HOUR_MS);
let items: Awaited<ReturnType<typeof stakeDemoItems>>;

beforeAll(async () => {
  db = await createTestDatabase();
  items = await stakeDemoItems(db.sql, alice, 4, hoursAgo(3));
  // On the chain, alice still holds three of them; the fourth has moved to bob.
  const owners = new Map(items.map((item, i) => [item.inscriptionId, i < 3 ? alice : bob]));
  chain = await startSimulatedChain({ owners });
  env = cliEnv(db.url, { ORD_URL: chain.url, INDEXER_RETRIES: "0", INDEXER_TIMEOUT_MS: "2000" });
});
afterAll(async () => {
  await chain?.close();
  await db?.close();
});

type AccrualJson = { hours: number; wallets: number; credited: { hour: string; wallets: number }[]; beyondLimit: number };

describe("spooks-admin points accrue", () => {
  const perHour = hourlyCreditUnits(4);

  it("credits one ended hour with --hour, once, and refuses an hour that has not ended", async () => {
    const credited = await runCli(["points", "accrue", "--hour", hoursAgo(2).toISOString()], env);
    expect(credited).toMatchObject({ code: 0, stderr: "" });
    expect(credited.stdout).toMatch(/^✔ Credited hour .* UTC: 16.67 points to 1 wallet\n$/);
    expect(await getBalanceUnits(db.sql, alice)).toBe(perHour);

    const [again, unfinished, badHour] = await Promise.all([
      runJson<{ alreadyCredited: boolean; wallets: number }>(["points", "accrue", "--hour", hoursAgo(2).toISOString()], env),
      runCli(["points", "accrue", "--hour", new Date(thisHour.getTime() + 2 * HOUR_MS).toISOString()], env),
      runCli(["points", "accrue", "--hour", "yesterday"], env),
    ]);
    expect(again).toMatchObject({ alreadyCredited: true, wallets: 0 });
    expect(unfinished).toMatchObject({ code: 1, stdout: "" });
    expect(unfinished.stderr).toMatch(/^error: The hour .* has not ended yet .*only ended hours are credited\n$/);
    expect(badHour).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: --hour must be an ISO 8601 time such as 2030-10-31T18:00:00Z (got 'yesterday')\n",
    });
    expect(await getBalanceUnits(db.sql, alice)).toBe(perHour);
  });

  it("catches up every uncredited ended hour, with the ledger and audit under actor cli", async () => {
    const report = await runJson<AccrualJson>(["points", "accrue"], env);
    const hours = report.credited.map((credit) => credit.hour);
    expect(hours).toContain(hoursAgo(3).toISOString());
    expect(hours).toContain(hoursAgo(1).toISOString());
    expect(hours).not.toContain(hoursAgo(2).toISOString());
    expect(await getBalanceUnits(db.sql, alice)).toBe((hours.length + 1) * perHour);

    const second = await runCli(["points", "accrue"], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^(ℹ Nothing to accrue: every ended hour is credited|✔ Accrued 1 hour)/);

    const ledger = await db.sql`select distinct actor from points_ledger where kind = 'accrual'`;
    expect(ledger).toEqual([{ actor: "cli" }]);
    // One row per hour credited (the --hour of the test above, then these), written with its ledger rows.
    const audit = await db.sql`select actor, action, target, after from audit_log where action = 'accrual.hour' order by id`;
    expect(audit.map((row) => `${row.actor} ${row.target}`)).toEqual(
      [hoursAgo(2), ...hours].map((hour) => `cli ${new Date(hour).toISOString()}`),
    );
    expect(audit[0].after).toEqual({ credited: true, wallets: 1, points: unitsToPoints(perHour) });
  });
});

describe("spooks-admin indexer", () => {
  it("reports no sync yet, refuses to sync without ORD_URL or with an unreachable one", async () => {
    const status = await runCli(["indexer", "status"], env);
    const [demo, unreachable] = await Promise.all([
      runCli(["indexer", "sync"], { ...env, ORD_URL: undefined }),
      runCli(["indexer", "sync", "--json"], { ...env, ORD_URL: "http://127.0.0.1:9" }),
    ]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(
        `^Ord server: +${chain.url}\\nLast sync: +never\\nLast credited hour: +\\d{4}-.* UTC\\nLast accrual: +.*\\(cli\\): 1 wallets, 16.67 points\\n$`,
      ),
    );
    expect(demo).toMatchObject({ code: 1, stdout: "" });
    expect(demo.stderr).toMatch(/^error: ORD_URL is not set/);
    expect(unreachable).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: the ord server at http://127.0.0.1:9 did not answer; nothing was changed\n",
    });
  });

  it("syncs owners from the ord server, ends the moved item's stake, and shows it in status", async () => {
    const result = await runCli(["indexer", "sync"], env);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(
      /^✔ Sync done at block [\d,]+: 4 items checked\nOwners changed: 1\nFirst seen: +\d+\nStakes ended: +1\nTook: +[\d,]+ ms\n$/,
    );
    const owner = await db.sql`select owner_address from ownership where item_id = ${items[3].id}`;
    expect(owner).toEqual([{ ownerAddress: bob }]);
    const stakes = await db.sql`select end_reason from stakes where item_id = ${items[3].id}`;
    expect(stakes).toEqual([{ endReason: "transferred" }]);

    chain.transfer(items[0].inscriptionId, bob);
    const second = await runJson<{ source: string; itemsChecked: number; ownersChanged: number; stakesEnded: number; errors: number }>(
      ["indexer", "sync"],
      env,
    );
    expect(second).toMatchObject({ source: "cli", itemsChecked: 4, ownersChanged: 1, stakesEnded: 1, errors: 0 });

    const status = await runJson<{ lastSync: { source: string; itemsChecked: number; blockHeight: number } }>(["indexer", "status"], env);
    expect(status.lastSync).toMatchObject({ source: "cli", itemsChecked: 4, blockHeight: chain.height() });
    const audit = await db.sql`select actor, action, target from audit_log where action = 'indexer.sync' order by id`;
    expect(audit.map((row) => `${row.actor} ${row.target}`)).toEqual(["cli http://127.0.0.1:9", `cli ${chain.url}`, `cli ${chain.url}`]);
  });

  it("a pass during an ord rollback is held back: sync exits 1 naming the reason, status shows it, nothing changes", async () => {
    chain.transfer(items[1].inscriptionId, bob);
    const highest = chain.blockCount();
    chain.beginRollback(45);
    try {
      const held = await runCli(["indexer", "sync"], env);
      expect(held).toEqual({
        code: 1,
        stdout: "",
        stderr: `error: the pass was held back (rewinding): block count ${highest - 45} is below the highest seen, ${highest - 1}; nothing was changed\n`,
      });
      const status = await runCli(["indexer", "status"], env);
      // Two in all: the pass against the unreachable server above was held back too.
      expect(status.stdout).toMatch(
        /\nSync state: +rewinding: block count [\d]+ is below the highest seen, [\d]+ \(nothing changed; 1 pass in a row, 2 in all\)\n/,
      );
      expect(await db.sql`select owner_address from ownership where item_id = ${items[1].id}`).toEqual([{ ownerAddress: alice }]);
    } finally {
      chain.endRollback();
    }
    expect(await runJson<{ state: string; ownersChanged: number }>(["indexer", "sync"], env)).toMatchObject({
      state: "ok",
      ownersChanged: 1,
    });
  });
  it("indexer sync runs the service's pass: it closes a giveaway whose end date passed and, six blocks on, draws it", async () => {
    const giveaway = await createGiveaway(
      db.sql,
      { title: "CLI pass", description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: new Date(Date.now() + 3_600_000) },
      { kind: "system" },
    );
    await addPoints(db.sql, { address: bob, points: 10, actor: { kind: "system" } });
    await enterGiveaway(db.sql, { giveawayId: giveaway.id, address: bob, tickets: 2 });
    await db.sql`update giveaways set end_date = ${new Date(Date.now() - 1000)} where id = ${giveaway.id}`;

    const closing = await runCli(["indexer", "sync"], env);
    expect(closing).toMatchObject({ code: 0, stderr: "" });
    expect(closing.stdout).toContain(`\nGiveaways closed: #${giveaway.id}\n`);
    const closed = await getGiveawayDraw(db.sql, giveaway.id);
    expect(closed).toMatchObject({ status: "drawing", blockHeight: chain.blockCount() + 6 });

    chain.mine(closed.blockHeight! + 7 - chain.blockCount());
    const drawing = await runJson<{ state: string; draws: { drawn: number[] } }>(["indexer", "sync"], env);
    expect(drawing).toMatchObject({ state: "ok", draws: { drawn: [giveaway.id] } });
    const drawn = await getGiveawayDraw(db.sql, giveaway.id);
    expect(drawn).toMatchObject({ status: "drawn", winnerAddresses: [bob], blockHash: chain.blockHash(closed.blockHeight!) });
    expect(verifyDraw(drawn).outcome).toBe("verified");
  });
});
