/**
 * A giveaway drawn end to end by the running indexer, as in demo mode: the simulated chain keeps mining,
 * entries close at the end date (or when winners are selected), and the draw runs by itself once six
 * blocks sit on top of the draw block.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyDraw } from "../app/domain/draw.ts";
import { silentLogger } from "../app/utils/logger.server.ts";
import { getGiveawayDraw } from "../db/queries/draws.server.ts";
import { createGiveaway, enterGiveaway } from "../db/queries/giveaways.server.ts";
import { addPoints } from "../db/queries/points.server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { selectWinners } from "./draws.server.ts";
import { createOrdClient } from "./ord-client.server.ts";
import { startIndexer } from "./service.server.ts";
import { startSimulatedChain, type SimulatedChain } from "./simulated-chain.server.ts";
import { indexerConfig, testAddress } from "./test-support.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: SimulatedChain;
const SYSTEM = { kind: "system" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  chain = await startSimulatedChain({ owners: new Map(), mineEveryMs: 100 });
});
afterAll(async () => {
  await chain.close();
  await db.close();
});

async function giveawayWithEntries(title: string, endInMs: number): Promise<number> {
  const giveaway = await createGiveaway(
    db.sql,
    { title, description: "d", imageUrl: "/uploads/x.png", pointsCost: 1, endDate: new Date(Date.now() + endInMs), winners: 2 },
    SYSTEM,
  );
  for (const label of ["a", "b", "c"]) {
    const address = testAddress(`service-draws-${title}-${label}`);
    await addPoints(db.sql, { address, points: 10, actor: SYSTEM });
    await enterGiveaway(db.sql, { giveawayId: giveaway.id, address, tickets: 3 });
  }
  return giveaway.id;
}

describe("the indexer draws by itself", () => {
  it("closes at the end date or at 'Select Winner', and draws once the mining chain puts six blocks on top", async () => {
    const byEndDate = await giveawayWithEntries("end-date", 3_600_000);
    const bySelection = await giveawayWithEntries("selected", 3_600_000);
    // Its end date passes now (the API only creates giveaways that end in the future).
    await db.sql`update giveaways set end_date = ${new Date()} where id = ${byEndDate}`;
    const client = createOrdClient({ baseUrl: chain.url, retries: 0 });
    const selected = await selectWinners(db.sql, client, bySelection, SYSTEM).finally(() => client.close());
    expect(selected).toMatchObject({ status: "drawing" });

    const indexer = await startIndexer({
      sql: db.sql,
      config: { ...indexerConfig({ syncCron: "* * * * * *" }), ordUrl: chain.url },
      logger: silentLogger,
    });
    try {
      for (const id of [bySelection, byEndDate]) {
        await expect.poll(async () => (await getGiveawayDraw(db.sql, id)).status, { timeout: 20_000, interval: 250 }).toBe("drawn");
        const draw = await getGiveawayDraw(db.sql, id);
        expect(draw.blockHash).toBe(chain.blockHash(draw.blockHeight!));
        expect(draw.winnerAddresses).toHaveLength(2);
        expect(verifyDraw(draw).outcome).toBe("verified");
      }
      expect((await getGiveawayDraw(db.sql, bySelection)).blockHeight).toBe(selected.version === 2 ? selected.blockHeight : -1);
    } finally {
      await indexer.stop();
    }
  }, 40_000);
});
