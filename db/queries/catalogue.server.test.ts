import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CatalogueItem } from "../../app/domain/catalogue.ts";
import { rarityForRank } from "../../app/domain/collections.ts";
import { createTestDatabase } from "../../tests/support/test-database.ts";
import type { Sql } from "../client.server.ts";
import { demoCatalogue } from "../demo-catalogue.ts";
import { catalogueStats, countItems, importCatalogue, itemsByInscriptionIds } from "./catalogue.server.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await sql`delete from items`;
});

const item = (collection: CatalogueItem["collection"], number: number, rank: number, idSeed = number): CatalogueItem => ({
  name: `${collection === "spooks" ? "Spooks" : "Spook Society"} #${number}`,
  inscriptionId: `${idSeed.toString(16).padStart(64, "0")}i0`,
  collection,
  number,
  rank,
  rarity: rarityForRank(rank),
});

async function rows() {
  return sql<{ inscriptionId: string; name: string; rank: number; rarity: string }[]>`
    select inscription_id, name, rank, rarity from items order by inscription_id`;
}

describe("importCatalogue", () => {
  it("inserts new items and reports how many", async () => {
    const items = [item("spooks", 1, 1), item("spooks", 2, 50), item("spook-society", 1, 1, 1001)];
    expect(await importCatalogue(sql, items)).toEqual({ inserted: 3, updated: 0 });
    expect(await countItems(sql)).toBe(3);
    const found = await itemsByInscriptionIds(sql, [items[1].inscriptionId]);
    expect(found).toMatchObject([{ name: "Spooks #2", collection: "spooks", number: 2, rank: 50, rarity: "Epic", imageUrl: null }]);
  });

  it("re-importing updates the existing rows instead of duplicating them", async () => {
    const items = [item("spooks", 1, 1), item("spooks", 2, 50)];
    await importCatalogue(sql, items);
    const corrected = [item("spooks", 1, 300), item("spooks", 2, 50), item("spooks", 3, 500)];
    expect(await importCatalogue(sql, corrected)).toEqual({ inserted: 1, updated: 2 });
    expect(await countItems(sql)).toBe(3);
    expect((await rows()).map((row) => [row.name, row.rank, row.rarity])).toEqual([
      ["Spooks #1", 300, "Rare"],
      ["Spooks #2", 50, "Epic"],
      ["Spooks #3", 500, "Common"],
    ]);
  });

  it("is all or nothing: a conflicting row rolls back every row before it, across chunks", async () => {
    const existing = item("spooks", 5000, 7, 999_999);
    await importCatalogue(sql, [existing]);
    const spooks = demoCatalogue()
      .filter((demo) => demo.collection === "spooks" && demo.rank !== 7)
      .slice(0, 600);
    // A new inscription claiming the existing item's rank: refused by unique (collection, rank).
    const conflicting = { ...item("spooks", 888_888, 7, 888_888) };
    const progress: number[] = [];
    await expect(importCatalogue(sql, [...spooks, conflicting], (done) => progress.push(done))).rejects.toMatchObject({ code: "23505" });
    expect(progress).toContain(500); // the first chunk was written inside the transaction …
    expect(await countItems(sql)).toBe(1); // … and rolled back with it.
    expect(await rows()).toMatchObject([{ inscriptionId: existing.inscriptionId, rank: 7 }]);
  });

  it("imports the whole demo catalogue, and again without duplicates", async () => {
    const catalogue = demoCatalogue();
    expect(await importCatalogue(sql, catalogue)).toEqual({ inserted: catalogue.length, updated: 0 });
    expect(await importCatalogue(sql, catalogue)).toEqual({ inserted: 0, updated: catalogue.length });
    const stats = await catalogueStats(sql);
    expect(stats).toEqual([
      { collection: "spook-society", items: 995, legendary: 44, epic: 134, rare: 266, common: 551, owned: 0 },
      { collection: "spooks", items: 888, legendary: 44, epic: 134, rare: 266, common: 444, owned: 0 },
    ]);
  });

  it("re-imports a corrected catalogue that swaps ranks (and numbers) between items", async () => {
    await importCatalogue(sql, [item("spooks", 1, 1), item("spooks", 2, 2), item("spooks", 3, 45)]);
    const [before] = await sql<{ id: number }[]>`select id from items where inscription_id = ${item("spooks", 1, 1).inscriptionId}`;
    // Ranks 1 ↔ 45 swap (rarity follows), and the inscriptions of #2 and #3 trade numbers.
    const corrected = [item("spooks", 1, 45, 1), item("spooks", 3, 2, 2), item("spooks", 2, 1, 3)];
    expect(await importCatalogue(sql, corrected)).toEqual({ inserted: 0, updated: 3 });
    expect((await rows()).map((row) => [row.name, row.rank, row.rarity])).toEqual([
      ["Spooks #1", 45, "Epic"],
      ["Spooks #3", 2, "Legendary"],
      ["Spooks #2", 1, "Legendary"],
    ]);
    // Updated in place: the row keeps its id (stakes and ownership refer to it).
    const [after] = await sql<{ id: number }[]>`select id from items where inscription_id = ${corrected[0].inscriptionId}`;
    expect(after.id).toBe(before.id);
  });

  it("a failed re-import leaves the parked rows as they were", async () => {
    await importCatalogue(sql, [item("spooks", 1, 1), item("spooks", 2, 2)]);
    const clash = item("spooks", 9, 2, 9); // a new inscription taking #2's rank, which #2 keeps
    await expect(importCatalogue(sql, [item("spooks", 1, 1), item("spooks", 2, 2), clash])).rejects.toMatchObject({ code: "23505" });
    expect((await rows()).map((row) => [row.name, row.rank])).toEqual([
      ["Spooks #1", 1],
      ["Spooks #2", 2],
    ]);
  });
});
