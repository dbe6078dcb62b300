/**
 * A draw's inputs never change once published (issue 23, item 3; migration 0017): every way the app's own
 * database role could rewrite a closed or drawn giveaway so that its recomputed draw still says "verified" is
 * refused by the database, on either engine; the product's own flows (create, enter, close, draw, activate,
 * change the image, delete before and after close) still work.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitmentOf, verifyDraw } from "../app/domain/draw.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import type { Sql } from "./client.server.ts";
import { closeEntries, getGiveawayDraw, recordDraw } from "./queries/draws.server.ts";
import { createGiveaway, deleteGiveaway, enterGiveaway, setGiveawayActive, setGiveawayImage } from "./queries/giveaways.server.ts";
import { addPoints } from "./queries/points.server.ts";
import { testAddress } from "../indexer/test-support.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: Sql;
let run = 0;
const SYSTEM = { kind: "system" } as const;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db?.close();
});

const hex64 = () => randomBytes(32).toString("hex");

async function refused(query: PromiseLike<unknown>, message: RegExp): Promise<void> {
  const error = (await Promise.resolve(query).then(
    () => null,
    (caught: unknown) => caught,
  )) as { code?: string; message?: string } | null;
  expect(error, "expected the database to refuse").not.toBeNull();
  expect(error?.code, error?.message).toBe("23514");
  expect(error?.message).toMatch(message);
}

/** A version-2 giveaway entered by three wallets (2, 3 and 4 tickets), with two winners. */
async function enteredGiveaway(): Promise<number> {
  run += 1;
  const giveaway = await createGiveaway(
    sql,
    {
      title: `Frozen ${run}`,
      description: "d",
      imageUrl: "/uploads/x.png",
      pointsCost: 1,
      endDate: new Date(Date.now() + 86_400_000),
      winners: 2,
    },
    SYSTEM,
  );
  for (const [index, tickets] of [2, 3, 4].entries()) {
    const address = testAddress(`frozen-${run}-${index}`);
    await addPoints(sql, { address, points: 100, actor: SYSTEM });
    await enterGiveaway(sql, { giveawayId: giveaway.id, address, tickets });
  }
  return giveaway.id;
}

async function drawnGiveaway(): Promise<number> {
  const id = await enteredGiveaway();
  await closeEntries(sql, id, 5_000_000, SYSTEM, "winners selected");
  await recordDraw(sql, id, hex64(), SYSTEM);
  return id;
}

describe("a closed or drawn giveaway's draw inputs", () => {
  it("a drawn giveaway: its seed with its commitment, winners, block, hash, winners list and frozen entries cannot change", async () => {
    const id = await drawnGiveaway();
    const published = await getGiveawayDraw(sql, id);
    expect(verifyDraw(published).outcome).toBe("verified");
    const seed = hex64();

    await refused(sql`update giveaways set draw_seed = ${seed}, draw_commitment = ${commitmentOf(seed)} where id = ${id}`, /never change/);
    await refused(sql`update giveaways set winners = winners + 1 where id = ${id}`, /never change/);
    await refused(sql`update giveaways set draw_version = 1 where id = ${id}`, /never change/);
    await refused(sql`update giveaways set draw_block_height = draw_block_height + 1 where id = ${id}`, /never change/);
    await refused(sql`update giveaways set closed_at = closed_at + interval '1 hour' where id = ${id}`, /never change/);
    await refused(sql`update giveaways set draw_block_hash = ${hex64()} where id = ${id}`, /never change/);
    await refused(sql`update giveaways set drawn_at = drawn_at + interval '1 second' where id = ${id}`, /never change/);
    await refused(sql`update giveaways set winner_address = ${testAddress("intruder")} where id = ${id}`, /never change/);
    await refused(sql`delete from giveaway_draw_entries where giveaway_id = ${id} and ordinal = 0`, /delete the giveaway as a whole/);
    await refused(
      sql`insert into giveaway_draw_entries (giveaway_id, ordinal, address, tickets) values (${id}, 3, ${testAddress("late")}, 50)`,
      /closed/,
    );
    await refused(sql`update giveaway_draw_entries set tickets = tickets + 1 where giveaway_id = ${id}`, /cannot change/);
    await refused(sql`delete from giveaway_winners where giveaway_id = ${id}`, /delete the giveaway as a whole/);
    await refused(
      sql`insert into giveaway_winners (giveaway_id, k, address, ticket, total_tickets) values (${id}, 2, ${testAddress("late")}, 0, 1)`,
      /drawn/,
    );
    // The app's role may truncate nothing (migration 0016); the triggers hold for the owner too.
    await expect(sql`truncate giveaway_draw_entries`).rejects.toMatchObject({ code: "42501" });
    await refused(db.owner.sql`truncate giveaway_draw_entries`, /cannot be truncated/);
    await refused(db.owner.sql`truncate giveaway_winners`, /cannot be truncated/);
    await refused(sql`delete from giveaways where id = ${id}`, /audit trail/);

    expect(await getGiveawayDraw(sql, id)).toEqual(published);
  });

  it("a closed giveaway waiting for its block: the block, the time and the frozen entries cannot change", async () => {
    const id = await enteredGiveaway();
    await closeEntries(sql, id, 5_000_000, SYSTEM, "winners selected");
    const published = await getGiveawayDraw(sql, id);
    expect(published.status).toBe("drawing");

    await refused(sql`update giveaways set draw_block_height = null, closed_at = null where id = ${id}`, /never change/);
    await refused(sql`update giveaways set winners = 100 where id = ${id}`, /never change/);
    await refused(sql`delete from giveaway_draw_entries where giveaway_id = ${id}`, /delete the giveaway as a whole/);
    await refused(
      sql`insert into giveaway_draw_entries (giveaway_id, ordinal, address, tickets) values (${id}, 3, ${testAddress("late")}, 50)`,
      /closed/,
    );
    await refused(sql`delete from giveaways where id = ${id}`, /audit trail/);
    expect(await getGiveawayDraw(sql, id)).toEqual(published);
  });

  it("an open giveaway: its commitment and seed are fixed from creation", async () => {
    const id = await enteredGiveaway();
    const seed = hex64();
    await refused(sql`update giveaways set draw_seed = ${seed}, draw_commitment = ${commitmentOf(seed)} where id = ${id}`, /never change/);
    await refused(sql`update giveaways set winners = 5 where id = ${id}`, /never change/);
  });
});

describe("the product's own flows still work", () => {
  it("create, enter, activate, change the image, close, draw: each writes what it writes once", async () => {
    const id = await enteredGiveaway();
    await setGiveawayActive(sql, id, false, SYSTEM);
    await setGiveawayActive(sql, id, true, SYSTEM);
    await setGiveawayImage(sql, id, "/uploads/y.png", SYSTEM);
    expect((await closeEntries(sql, id, 5_000_000, SYSTEM, "winners selected")).closed).toBe(true);
    expect((await closeEntries(sql, id, 5_000_100, SYSTEM, "end date")).closed).toBe(false); // keeps its block
    await setGiveawayActive(sql, id, false, SYSTEM); // ending a closed giveaway changes no draw input
    const blockHash = createHash("sha256").update(`block-${id}`).digest("hex");
    const drawn = await recordDraw(sql, id, blockHash, SYSTEM);
    expect(drawn).toMatchObject({ status: "drawn", blockHash });
    expect(await recordDraw(sql, id, hex64(), SYSTEM)).toEqual(drawn); // a second draw keeps the first
    expect(verifyDraw(await getGiveawayDraw(sql, id)).outcome).toBe("verified");
  });

  it("delete before close refunds; delete after close and after the draw removes the giveaway whole, with its audit row", async () => {
    const open = await enteredGiveaway();
    expect(await deleteGiveaway(sql, open, SYSTEM)).toMatchObject({ refunded: 3 });

    const closed = await enteredGiveaway();
    await closeEntries(sql, closed, 5_000_000, SYSTEM, "winners selected");
    expect(await deleteGiveaway(sql, closed, SYSTEM)).toMatchObject({ refunded: 3 });

    const drawn = await drawnGiveaway();
    expect(await deleteGiveaway(sql, drawn, SYSTEM)).toMatchObject({ refunded: 0 });

    for (const id of [open, closed, drawn]) {
      const [rows] = await sql<{ giveaways: number; frozen: number; winners: number; audited: number }[]>`
        select (select count(*)::int from giveaways where id = ${id}) as giveaways,
               (select count(*)::int from giveaway_draw_entries where giveaway_id = ${id}) as frozen,
               (select count(*)::int from giveaway_winners where giveaway_id = ${id}) as winners,
               (select count(*)::int from audit_log where action = 'giveaway.delete' and target = ${`giveaway:${id}`}) as audited`;
      expect(rows).toEqual({ giveaways: 0, frozen: 0, winners: 0, audited: 1 });
    }
  });
});
