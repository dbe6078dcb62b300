/**
 * The indexer across faults (issue 11, item 6), against the simulated wonky-ord over real HTTP:
 * - the ord server down for a simulated hour: every pass records an error and changes nothing, then the
 *   next pass converges on the chain's truth;
 * - `kill -9` of a real indexer process (`indexer/main.ts`) in the middle of a sync pass and of an accrual
 *   pass, then a restart: owners converge with each move recorded once, every hour is credited exactly once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { HOUR_MS, hourStart, now } from "../../app/domain/clock.ts";
import { hourlyCreditUnits } from "../../app/domain/rewards.ts";
import { accruePending } from "../../indexer/accrual.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { syncOnce } from "../../indexer/sync.server.ts";
import {
  at,
  indexerConfig,
  openStake,
  resetIndexerState,
  seedItems,
  testAddress,
  testClock,
  type SeededItem,
} from "../../indexer/test-support.ts";
import { createTestDatabase } from "../support/test-database.ts";

// Each test starts the indexer, kills it and starts it again, each under tsx: 13-15 s on a loaded 2-core machine
// (stop 41's CI), half the suite's 30 s.
vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.resolve(import.meta.dirname, "../..");

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: SimulatedChain | undefined;
let indexer: ChildProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  indexer?.kill("SIGKILL");
  indexer = undefined;
  await chain?.close();
  chain = undefined;
});
afterAll(() => db.close());

const count = async (query: Promise<{ n: number }[]>) => (await query)[0].n;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A real standalone indexer process on the test database; only its start-up passes run (crons far away). */
function startIndexerProcess(ordUrl: string, extra: Record<string, string> = {}): ChildProcess {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "indexer/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: db.url,
      ORD_URL: ordUrl,
      LOG_LEVEL: "warn",
      INDEXER_SYNC_CRON: "0 0 1 1 *",
      INDEXER_ACCRUAL_CRON: "0 0 1 1 *",
      INDEXER_RETRIES: "0",
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  child.on("exit", (code, signal) => {
    if (code !== null && code !== 0) console.warn(`indexer exited ${code}: ${output}`);
    void signal;
  });
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("the ord server down for a simulated hour", () => {
  it("every pass records an error and changes nothing; when it is back, the next pass converges", async () => {
    await resetIndexerState(db.sql);
    const items: SeededItem[] = await seedItems(db.sql, 6);
    const alice = testAddress("faults-alice");
    const bob = testAddress("faults-bob");
    chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, alice])) });
    const clock = testClock(at(0));
    const sync = () => syncOnce({ sql: db.sql, ordUrl: chain!.url, config: indexerConfig(), source: "scheduled", wait: true });
    try {
      await sync();
      const stake = await openStake(db.sql, items[0].id, alice, at(0));
      const before = await db.sql`select * from ownership order by item_id`;

      chain.failNext("server-error", { route: "status", times: 1_000 });
      chain.transfer(items[0].inscriptionId, bob); // moves while the server is down
      for (let minute = 1; minute <= 60; minute++) {
        clock.set(at(0, minute));
        const report = await sync();
        expect(report).toMatchObject({ skipped: false, state: "unavailable", errors: 1, ownersChanged: 0, stakesEnded: 0 });
      }
      expect(await db.sql`select * from ownership order by item_id`).toEqual(before);
      expect(await count(db.sql`select count(*)::int as n from sync_runs where state = 'unavailable'`)).toBe(60);

      chain.clearFaults();
      clock.set(at(1, 1));
      expect(await sync()).toMatchObject({ state: "ok", ownersChanged: 1, stakesEnded: 1, errors: 0 });
      const [row] =
        await db.sql`select owner_address, ended_at from ownership o join stakes s on s.item_id = o.item_id where s.id = ${stake}`;
      expect(row).toEqual({ ownerAddress: bob, endedAt: at(1, 1) });
    } finally {
      clock.restore();
    }
  });
});

describe("kill -9 of the indexer in the middle of a pass", () => {
  it("during a sync pass: nothing half-applied; after a restart every owner is recorded, each once", async () => {
    await resetIndexerState(db.sql);
    await db.sql`delete from items`;
    const items = await seedItems(db.sql, 40);
    const owner = testAddress("faults-owner");
    chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, owner])) });
    chain.setLatency(60);
    indexer = startIndexerProcess(chain.url, { INDEXER_CONCURRENCY: "1" });
    await until("the pass to have read some items", async () => (chain!.stats().byRoute.inscription ?? 0) >= 5);
    await killHard(indexer);
    const readBeforeKill = chain.stats().byRoute.inscription ?? 0;
    expect(readBeforeKill).toBeLessThan(items.length);
    // Moves are applied only after the pass's closing check: a killed pass leaves nothing behind.
    expect(await count(db.sql`select count(*)::int as n from ownership`)).toBe(0);
    expect(await count(db.sql`select count(*)::int as n from transfers`)).toBe(0);

    chain.setLatency(0);
    indexer = startIndexerProcess(chain.url);
    await until(
      "a pass applied after the restart",
      async () => (await count(db.sql`select count(*)::int as n from sync_runs where state = 'ok'`)) === 1,
    );
    expect(await count(db.sql`select count(*)::int as n from ownership where owner_address = ${owner}`)).toBe(items.length);
    expect(await count(db.sql`select count(*)::int as n from transfers`)).toBe(items.length);
  });

  it("during an accrual pass: after a restart every hour is credited exactly once", async () => {
    await resetIndexerState(db.sql);
    await db.sql`delete from items`;
    const WALLETS = 200;
    const ITEMS_PER_WALLET = 10;
    const HOURS = 48;
    const thisHour = hourStart(now());
    const since = new Date(thisHour.getTime() - HOURS * HOUR_MS);
    await db.sql`
      insert into items (inscription_id, collection, name, number, rank, rarity)
      select md5('fault' || g) || md5('kill' || g) || 'i0', 'spooks', 'Fault Spook #' || g, g, g,
             case when g <= 44 then 'Legendary' when g <= 178 then 'Epic' when g <= 444 then 'Rare' else 'Common' end
      from generate_series(1, ${WALLETS * ITEMS_PER_WALLET}::int) as g`;
    const wallets = Array.from({ length: WALLETS }, (_, i) => testAddress(`faults-wallet-${i}`));
    await db.sql`
      insert into stakes (item_id, address, started_at)
      select id, (${wallets}::text[])[1 + (id % ${WALLETS}::int)], ${since} from items`;
    chain = await startSimulatedChain({ owners: new Map() });

    indexer = startIndexerProcess(chain.url, { ACCRUAL_CATCHUP_HOURS: String(HOURS) });
    const credited = () => count(db.sql`select count(*)::int as n from accrual_runs`);
    await until("some hours credited", async () => (await credited()) >= 2);
    await killHard(indexer);
    const atKill = await credited();
    expect(atKill).toBeLessThan(HOURS); // killed in the middle of the catch-up

    indexer = startIndexerProcess(chain.url, { ACCRUAL_CATCHUP_HOURS: String(HOURS) });
    await until("every hour credited", async () => (await credited()) === HOURS, 120_000);
    await killHard(indexer);
    indexer = undefined;

    // One row per (wallet, hour), and each wallet holds exactly HOURS credits of its tier.
    const rows = await db.sql<{ address: string; hours: number; distinctHours: number; units: number }[]>`
      select address, count(*)::int as hours, count(distinct accrual_hour)::int as distinct_hours, sum(amount)::bigint as units
      from points_ledger where kind = 'accrual' and address = any(${wallets}) group by address`;
    expect(rows).toHaveLength(WALLETS);
    for (const row of rows) {
      expect(row).toEqual({ address: row.address, hours: HOURS, distinctHours: HOURS, units: HOURS * hourlyCreditUnits(ITEMS_PER_WALLET) });
    }
    // A pass after all of it credits nothing more.
    const again = await accruePending({ sql: db.sql, maxHours: HOURS, source: "cli" });
    expect(again).toMatchObject({ skipped: false, hours: [] });
  });
});
