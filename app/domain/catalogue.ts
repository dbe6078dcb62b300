/** Rarity catalogue rows: what a valid row is, checked row by row so an import can name each bad one. */
import {
  collectionKeyOf,
  isInscriptionId,
  itemName,
  itemNumberFromName,
  rarityForRank,
  RARITIES,
  type CollectionKey,
  type Rarity,
} from "./collections.ts";

export type CatalogueItem = {
  name: string;
  inscriptionId: string;
  collection: CollectionKey;
  number: number;
  rank: number;
  rarity: Rarity;
};

export type RowError = { row: number; message: string };

function field(raw: Record<string, unknown>, key: string): string {
  const value = raw[key];
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  // A nested array or object shows as JSON, so it fails as what it is: String() would pass `[5]` as rank "5".
  return JSON.stringify(value);
}

/** Checks one raw row (from JSON or CSV); `row` is its 1-based position for messages. */
export function parseCatalogueRow(raw: unknown, row: number): CatalogueItem | RowError {
  if (!raw || typeof raw !== "object") return { row, message: "not an object" };
  const record = raw as Record<string, unknown>;
  const name = field(record, "name");
  const inscriptionId = field(record, "inscriptionId").toLowerCase();
  const collection = collectionKeyOf(field(record, "collection"));
  const rankText = field(record, "rank");
  const rarityText = field(record, "rarity");

  if (collection === "unknown") return { row, message: `unknown collection '${field(record, "collection")}'` };
  if (!isInscriptionId(inscriptionId)) return { row, message: `invalid inscriptionId '${field(record, "inscriptionId")}'` };
  const number = itemNumberFromName(name);
  if (number === null || number < 1 || name !== itemName(collection, number)) {
    return { row, message: `name '${name}' must be '${itemName(collection, number ?? 1).replace(/\d+$/, "N")}'` };
  }
  const rank = Number(rankText);
  if (!/^\d+$/.test(rankText) || !Number.isSafeInteger(rank) || rank < 1) return { row, message: `invalid rank '${rankText}'` };
  const rarity = rarityForRank(rank);
  if (rarityText) {
    const given = RARITIES.find((r) => r.toLowerCase() === rarityText.toLowerCase());
    if (!given) return { row, message: `unknown rarity '${rarityText}'` };
    if (given !== rarity) return { row, message: `rarity '${given}' does not match rank ${rank} (${rarity})` };
  }
  return { name, inscriptionId, collection, number, rank, rarity };
}

/** Validates every row and the uniqueness rules across rows; returns items only when all are good. */
export function validateCatalogue(rows: readonly unknown[]): { items: CatalogueItem[]; errors: RowError[] } {
  const items: CatalogueItem[] = [];
  const errors: RowError[] = [];
  const seen = new Map<string, number>();
  rows.forEach((raw, index) => {
    const parsed = parseCatalogueRow(raw, index + 1);
    if ("message" in parsed) return void errors.push(parsed);
    for (const key of [`id:${parsed.inscriptionId}`, `name:${parsed.name}`, `rank:${parsed.collection}:${parsed.rank}`]) {
      const first = seen.get(key);
      if (first !== undefined) {
        errors.push({ row: index + 1, message: `duplicate ${key.split(":")[0]} (first on row ${first})` });
        return;
      }
    }
    for (const key of [`id:${parsed.inscriptionId}`, `name:${parsed.name}`, `rank:${parsed.collection}:${parsed.rank}`]) {
      seen.set(key, index + 1);
    }
    items.push(parsed);
  });
  return { items: errors.length ? [] : items, errors };
}
