import { describe, expect, it } from "vitest";
import { parseCatalogueRow, validateCatalogue, type CatalogueItem } from "./catalogue.ts";

const id = (n: number) => `${n.toString(16).padStart(64, "0")}i0`;
const row = (overrides: Record<string, unknown> = {}) => ({
  name: "Spooks #12",
  inscriptionId: id(12),
  collection: "spooks",
  rank: 50,
  rarity: "Epic",
  ...overrides,
});

describe("parseCatalogueRow", () => {
  it("accepts a good row and derives number, collection key and rarity", () => {
    expect(parseCatalogueRow(row(), 1)).toEqual<CatalogueItem>({
      name: "Spooks #12",
      inscriptionId: id(12),
      collection: "spooks",
      number: 12,
      rank: 50,
      rarity: "Epic",
    });
  });

  it("accepts CSV-style text fields, any collection label the spec matches, any rarity case, and no rarity", () => {
    const parsed = parseCatalogueRow(
      {
        name: " Spook Society #995 ",
        inscriptionId: id(995).toUpperCase().replace("I0", "i0"),
        collection: "Spook Society",
        rank: "1",
        rarity: "legendary",
      },
      3,
    );
    expect(parsed).toEqual({
      name: "Spook Society #995",
      inscriptionId: id(995),
      collection: "spook-society",
      number: 995,
      rank: 1,
      rarity: "Legendary",
    });
    expect(parseCatalogueRow(row({ rarity: undefined, rank: 445 }), 1)).toMatchObject({ rarity: "Common" });
    expect(parseCatalogueRow(row({ collection: "SPOOKS" }), 1)).toMatchObject({ collection: "spooks" });
  });

  it.each([
    ["not an object", "text", /not an object/],
    ["null", null, /not an object/],
    ["unknown collection", row({ collection: "spooky" }), /unknown collection 'spooky'/],
    ["missing collection", row({ collection: undefined }), /unknown collection/],
    ["bad inscription id", row({ inscriptionId: "abc" }), /invalid inscriptionId 'abc'/],
    ["missing inscription id", row({ inscriptionId: null }), /invalid inscriptionId/],
    ["name without number", row({ name: "Spooks" }), /name 'Spooks' must be 'Spooks #N'/],
    ["name of the other collection", row({ name: "Spook Society #12" }), /must be 'Spooks #N'/],
    ["name with leading zero", row({ name: "Spooks #012" }), /must be 'Spooks #N'/],
    ["name #0", row({ name: "Spooks #0" }), /must be 'Spooks #N'/],
    ["name with trailing text", row({ name: "Spooks #12 (gold)" }), /must be 'Spooks #N'/],
    ["rank 0", row({ rank: 0 }), /invalid rank '0'/],
    ["negative rank", row({ rank: -3 }), /invalid rank/],
    ["fractional rank", row({ rank: 4.5 }), /invalid rank/],
    ["rank in exponent form", row({ rank: "1e2" }), /invalid rank/],
    ["missing rank", row({ rank: undefined }), /invalid rank ''/],
    ["rank in an array", row({ rank: [50] }), /invalid rank '\[50\]'/],
    ["name in an object", row({ name: { text: "Spooks #12" } }), /name '\{"text":"Spooks #12"\}' must be 'Spooks #N'/],
    ["unknown rarity", row({ rarity: "Mythic" }), /unknown rarity 'Mythic'/],
    ["rarity not matching rank 44", row({ rank: 44, rarity: "Epic" }), /rarity 'Epic' does not match rank 44 \(Legendary\)/],
    ["rarity not matching rank 45", row({ rank: 45, rarity: "Legendary" }), /does not match rank 45 \(Epic\)/],
    ["rarity not matching rank 179", row({ rank: 179, rarity: "Epic" }), /does not match rank 179 \(Rare\)/],
    ["rarity not matching rank 445", row({ rank: 445, rarity: "Rare" }), /does not match rank 445 \(Common\)/],
  ])("refuses %s, naming the row", (_, raw, message) => {
    const result = parseCatalogueRow(raw, 7);
    expect(result).toMatchObject({ row: 7 });
    expect((result as { message: string }).message).toMatch(message);
  });
});

describe("validateCatalogue", () => {
  const good = [
    row(),
    row({ name: "Spooks #13", inscriptionId: id(13), rank: 1, rarity: "Legendary" }),
    row({ name: "Spook Society #12", inscriptionId: id(1012), collection: "spook-society", rank: 50 }),
  ];

  it("returns every item when all rows are good (the same rank in two collections is fine)", () => {
    const { items, errors } = validateCatalogue(good);
    expect(errors).toEqual([]);
    expect(items.map((item) => item.name)).toEqual(["Spooks #12", "Spooks #13", "Spook Society #12"]);
  });

  it("returns no items at all when any row is bad, and names every bad row", () => {
    const { items, errors } = validateCatalogue([
      ...good,
      row({ name: "Spooks #14", inscriptionId: "bad" }),
      row({ name: "Spooks #15", inscriptionId: id(15), rank: 0 }),
    ]);
    expect(items).toEqual([]);
    expect(errors.map((error) => error.row)).toEqual([4, 5]);
  });

  it.each([
    ["inscription id", row({ name: "Spooks #99", rank: 99 }), /duplicate id \(first on row 1\)/],
    ["inscription id in another case", row({ name: "Spooks #99", rank: 99, inscriptionId: id(12).replace("c", "C") }), /duplicate id/],
    ["name", row({ inscriptionId: id(99), rank: 99 }), /duplicate name \(first on row 1\)/],
    ["rank within a collection", row({ name: "Spooks #99", inscriptionId: id(99), rank: 50 }), /duplicate rank \(first on row 1\)/],
  ])("refuses a duplicate %s", (_, duplicate, message) => {
    const { items, errors } = validateCatalogue([...good, duplicate]);
    expect(items).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0].row).toBe(4);
    expect(errors[0].message).toMatch(message);
  });

  it("a duplicate does not shadow later rows: the second of two duplicates is the one reported", () => {
    const { errors } = validateCatalogue([row(), row(), row({ name: "Spooks #77", inscriptionId: id(77), rank: 77 })]);
    expect(errors).toEqual([{ row: 2, message: "duplicate id (first on row 1)" }]);
  });
});
