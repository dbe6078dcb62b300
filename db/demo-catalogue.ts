/**
 * The synthetic catalogue of demo mode: 888 Spooks and 995 Spook Society, the same on every machine.
 * Inscription ids are sha256 of a fixed label + "i0"; ranks are a seeded shuffle of 1..size.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { CatalogueItem } from "../app/domain/catalogue.ts";
import { COLLECTIONS, COLLECTION_KEYS, itemName, rarityForRank, type CollectionKey } from "../app/domain/collections.ts";

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffledRanks(size: number, seed: number): number[] {
  const ranks = Array.from({ length: size }, (_, i) => i + 1);
  const random = mulberry32(seed);
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ranks[i], ranks[j]] = [ranks[j], ranks[i]];
  }
  return ranks;
}

export function demoInscriptionId(collection: CollectionKey, number: number): string {
  return `${bytesToHex(sha256(new TextEncoder().encode(`spooks-demo:${collection}:${number}`)))}i0`;
}

export function demoCatalogue(): CatalogueItem[] {
  return COLLECTION_KEYS.flatMap((collection, index) => {
    const size = COLLECTIONS[collection].size;
    const ranks = shuffledRanks(size, 0x5b00c5 + index);
    return ranks.map((rank, i) => ({
      name: itemName(collection, i + 1),
      inscriptionId: demoInscriptionId(collection, i + 1),
      collection,
      number: i + 1,
      rank,
      rarity: rarityForRank(rank),
    }));
  });
}
