/** The two collections, their names, and the rarity of a rank (DECISIONS "Names", "Rarity"). */
export const COLLECTIONS = {
  spooks: { key: "spooks", displayName: "Spooks", itemPrefix: "Spooks", size: 888 },
  "spook-society": {
    key: "spook-society",
    displayName: "Spook Society",
    itemPrefix: "Spook Society",
    size: 995,
  },
} as const;

export type CollectionKey = keyof typeof COLLECTIONS;
export const COLLECTION_KEYS = Object.keys(COLLECTIONS) as CollectionKey[];

/** Spec: compared case-insensitively: exactly 'spooks', or containing both 'spook' and 'society'. */
export function collectionKeyOf(label: string): CollectionKey | "unknown" {
  const lower = label.trim().toLowerCase();
  if (lower === "spooks") return "spooks";
  if (lower.includes("spook") && lower.includes("society")) return "spook-society";
  return "unknown";
}

export function itemName(collection: CollectionKey, number: number): string {
  return `${COLLECTIONS[collection].itemPrefix} #${number}`;
}

/** The item number a name carries ('Spooks #12' → 12), or null when it has none. */
export function itemNumberFromName(name: string): number | null {
  const match = /#(\d+)/.exec(name);
  if (!match) return null;
  const number = Number(match[1]);
  return Number.isSafeInteger(number) ? number : null;
}

export const RARITIES = ["Legendary", "Epic", "Rare", "Common"] as const;
export type Rarity = (typeof RARITIES)[number];

/** Both collections: Legendary 1-44, Epic 45-178, Rare 179-444, Common 445 and above. */
export function rarityForRank(rank: number): Rarity {
  if (!Number.isInteger(rank) || rank < 1) throw new RangeError(`invalid rank ${rank}`);
  if (rank <= 44) return "Legendary";
  if (rank <= 178) return "Epic";
  if (rank <= 444) return "Rare";
  return "Common";
}

/**
 * The numeric `rarity` field of a wallet item (1-4): an ordinal of the label, Common 1 … Legendary 4.
 * The label is what pages show; the number only sorts.
 */
export function rarityLevel(rarity: Rarity): 1 | 2 | 3 | 4 {
  return ({ Common: 1, Rare: 2, Epic: 3, Legendary: 4 } as const)[rarity];
}

/** ord's one spelling of an inscription id: the reveal txid in lower-case hex, `i`, the index without leading zeros. */
export const INSCRIPTION_ID_PATTERN = /^[0-9a-f]{64}i(?:0|[1-9][0-9]*)$/;

export function isInscriptionId(value: string): boolean {
  return INSCRIPTION_ID_PATTERN.test(value);
}
