import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { validateCatalogue } from "../app/domain/catalogue.ts";
import { rarityForRank } from "../app/domain/collections.ts";
import { demoCatalogue, demoInscriptionId } from "./demo-catalogue.ts";

describe("demo catalogue", () => {
  const catalogue = demoCatalogue();
  const of = (collection: string) => catalogue.filter((item) => item.collection === collection);

  it("has 888 Spooks and 995 Spook Society, numbered 1..size and named after the collection", () => {
    expect(catalogue).toHaveLength(888 + 995);
    for (const [collection, prefix, size] of [
      ["spooks", "Spooks", 888],
      ["spook-society", "Spook Society", 995],
    ] as const) {
      const items = of(collection);
      expect(items).toHaveLength(size);
      expect(items.map((item) => item.number)).toEqual(Array.from({ length: size }, (_, i) => i + 1));
      for (const item of items) expect(item.name).toBe(`${prefix} #${item.number}`);
    }
  });

  it("is the same on every call", () => {
    expect(demoCatalogue()).toEqual(catalogue);
  });

  it("ranks are a permutation of 1..size in each collection, shuffled, with matching rarity", () => {
    for (const [collection, size] of [
      ["spooks", 888],
      ["spook-society", 995],
    ] as const) {
      const items = of(collection);
      const ranks = items.map((item) => item.rank);
      expect([...ranks].sort((a, b) => a - b)).toEqual(Array.from({ length: size }, (_, i) => i + 1));
      // Shuffled, not rank = number.
      expect(items.filter((item) => item.rank === item.number).length).toBeLessThan(size / 10);
      for (const item of items) expect(item.rarity).toBe(rarityForRank(item.rank));
      const counts = Object.fromEntries(
        ["Legendary", "Epic", "Rare", "Common"].map((r) => [r, items.filter((i) => i.rarity === r).length]),
      );
      expect(counts).toEqual({ Legendary: 44, Epic: 134, Rare: 266, Common: size - 444 });
    }
  });

  it("the two collections are not shuffled alike", () => {
    const spooks = of("spooks").map((item) => item.rank);
    const society = of("spook-society")
      .slice(0, 888)
      .map((item) => item.rank);
    expect(society).not.toEqual(spooks);
  });

  it("inscription ids are valid, unique, and sha256 of a fixed label + i0", () => {
    const ids = catalogue.map((item) => item.inscriptionId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}i0$/);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = createHash("sha256").update("spooks-demo:spook-society:7").digest("hex");
    expect(demoInscriptionId("spook-society", 7)).toBe(`${expected}i0`);
    expect(of("spook-society")[6].inscriptionId).toBe(`${expected}i0`);
  });

  it("passes the import validation as a whole", () => {
    const { items, errors } = validateCatalogue(catalogue);
    expect(errors).toEqual([]);
    expect(items).toHaveLength(catalogue.length);
  });
});
