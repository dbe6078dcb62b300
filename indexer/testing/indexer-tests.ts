/**
 * The set-up the indexer's database tests share: one test database for the file, seeded; before each test a
 * new `run` number, the indexer's state reset, the clock at hour 0 and, with `chainOwner`, a simulated chain
 * on which every seeded item belongs to that wallet; after it the clock restored and the chain closed.
 * (Not in ../test-support.ts: that module serves the benchmarks too, which run without vitest.)
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { Sql } from "../../db/client.server.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/test-database.ts";
import { startSimulatedChain, type SimulatedChain, type SimulatedChainOptions } from "../simulated-chain.server.ts";
import { at, resetIndexerState, seedItems, testClock, type SeededItem } from "../test-support.ts";

/** What the hooks set up, read by the file's tests (set before each test runs). */
export type IndexerTests = {
  db: TestDatabase;
  /** The seeded items, when `seed` is a count (else empty). */
  items: SeededItem[];
  clock: ReturnType<typeof testClock>;
  /** New for each test, so each test's wallets (labelled with it) are its own. */
  run: number;
  /** This test's chain (with `chainOwner` only). */
  chain: SimulatedChain;
  /** Starts this test's chain again, with other options (close the one running first). */
  startChain(options?: Partial<SimulatedChainOptions>): Promise<void>;
};

export function useIndexerTests(options: {
  /** How many demo catalogue items to seed, or the file's own seeding. */
  seed: number | ((sql: Sql) => Promise<void>);
  /** Run first before each test, with `run` already new (the file's wallets for this test). */
  eachTest?: () => void;
  /** Who owns every seeded item on the chain each test starts; left out, no chain is started. */
  chainOwner?: () => string;
}): IndexerTests {
  const { chainOwner } = options;
  const tests = {
    run: 0,
    items: [],
    async startChain(chainOptions: Partial<SimulatedChainOptions> = {}) {
      const owner = chainOwner?.() ?? "";
      tests.chain = await startSimulatedChain({ owners: new Map(tests.items.map((item) => [item.inscriptionId, owner])), ...chainOptions });
    },
  } as unknown as IndexerTests;

  beforeAll(async () => {
    tests.db = await createTestDatabase();
    if (typeof options.seed === "number") tests.items = await seedItems(tests.db.sql, options.seed);
    else await options.seed(tests.db.sql);
  });
  afterAll(() => tests.db.close());
  beforeEach(async () => {
    tests.run += 1;
    options.eachTest?.();
    await resetIndexerState(tests.db.sql);
    tests.clock = testClock(at(0));
    if (chainOwner) await tests.startChain();
  });
  afterEach(async () => {
    tests.clock.restore();
    if (chainOwner) await tests.chain.close();
  });
  return tests;
}
