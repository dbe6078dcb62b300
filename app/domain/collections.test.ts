import { describe, expect, it } from "vitest";
import { COLLECTIONS, collectionKeyOf, isInscriptionId, itemName, itemNumberFromName, rarityForRank, rarityLevel } from "./collections.ts";

describe("collectionKeyOf (case-insensitive: exactly 'spooks', or containing both 'spook' and 'society')", () => {
  it.each([
    ["Spooks", "spooks"],
    ["SPOOKS", "spooks"],
    ["spooks", "spooks"],
    ["Spook Society", "spook-society"],
    ["spook-society", "spook-society"],
    ["SPOOK SOCIETY", "spook-society"],
    ["society of spooks", "spook-society"],
    ["spooky", "unknown"],
    ["Spook", "unknown"],
    ["Spooks Club", "unknown"],
    ["Society", "unknown"],
    ["", "unknown"],
  ])("%j → %s", (label, key) => {
    expect(collectionKeyOf(label)).toBe(key);
  });
});

describe("item names and numbers", () => {
  it("names items 'Spooks #N' and 'Spook Society #N'", () => {
    expect(itemName("spooks", 12)).toBe("Spooks #12");
    expect(itemName("spook-society", 995)).toBe("Spook Society #995");
    expect(COLLECTIONS.spooks.size).toBe(888);
    expect(COLLECTIONS["spook-society"].size).toBe(995);
  });

  it.each([
    ["Spooks #12", 12],
    ["Spook Society #995", 995],
    ["#7", 7],
    ["Spooks #1 (rare)", 1],
    ["Spooks #3 #4", 3],
    ["Spooks #0", 0],
    ["Spooks", null],
    ["Spooks #", null],
    ["Spooks # 12", null],
    ["Spooks 12", null],
    ["", null],
    ["Spooks #99999999999999999999", null],
  ])("itemNumberFromName(%j) → %j", (name, number) => {
    expect(itemNumberFromName(name)).toBe(number);
  });

  it("reads back every number it names", () => {
    for (const n of [1, 9, 10, 444, 888, 995]) {
      expect(itemNumberFromName(itemName("spooks", n))).toBe(n);
      expect(itemNumberFromName(itemName("spook-society", n))).toBe(n);
    }
  });
});

describe("rarityForRank (Legendary 1-44, Epic 45-178, Rare 179-444, Common 445+)", () => {
  it.each([
    [1, "Legendary"],
    [44, "Legendary"],
    [45, "Epic"],
    [178, "Epic"],
    [179, "Rare"],
    [444, "Rare"],
    [445, "Common"],
    [888, "Common"],
    [995, "Common"],
  ])("rank %i → %s", (rank, rarity) => {
    expect(rarityForRank(rank)).toBe(rarity);
  });

  it("refuses ranks that are not positive integers", () => {
    for (const rank of [0, -1, 1.5, Number.NaN]) expect(() => rarityForRank(rank)).toThrow(RangeError);
  });

  it("orders the numeric rarity Common 1 < Rare 2 < Epic 3 < Legendary 4", () => {
    expect([rarityLevel("Common"), rarityLevel("Rare"), rarityLevel("Epic"), rarityLevel("Legendary")]).toEqual([1, 2, 3, 4]);
  });
});

describe("isInscriptionId (64 lowercase hex + 'i' + index)", () => {
  const txid = "a".repeat(63) + "0";
  it("accepts txid + i0 and other indexes", () => {
    expect(isInscriptionId(`${txid}i0`)).toBe(true);
    expect(isInscriptionId(`${txid}i12`)).toBe(true);
  });
  it("refuses wrong lengths, uppercase, missing index and non-hex", () => {
    expect(isInscriptionId(`${txid.slice(1)}i0`)).toBe(false);
    expect(isInscriptionId(`${txid}0i0`)).toBe(false);
    expect(isInscriptionId(`${txid.toUpperCase()}i0`)).toBe(false);
    expect(isInscriptionId(txid)).toBe(false);
    expect(isInscriptionId(`${txid}i`)).toBe(false);
    expect(isInscriptionId(`${"g".repeat(64)}i0`)).toBe(false);
    expect(isInscriptionId(`${txid}i0 `)).toBe(false);
  });
});
