/**
 * Giveaway rules, and the provably fair draw (DECISIONS "Giveaways").
 *
 * Commit-reveal: at creation the server draws a 32-byte seed from a secure random source and publishes
 * drawCommitment = hex(SHA-256(seed bytes)). At the draw it reveals drawSeed (hex). The winning ticket is
 *   t = uint256(SHA-256(utf8("spooks-draw:" + drawSeed + ":" + totalTickets))) mod totalTickets
 * over the entries in ascending entry id, each entry holding the ticket range [before, before + tickets).
 * Anyone can check sha256(seed) = commitment and recompute t and the winner.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, randomBytes } from "@noble/hashes/utils.js";

export const DEFAULT_POINTS_COST = 100;
/** Winners of a (version 2) draw, set at creation. */
export const DEFAULT_WINNERS = 1;
export const MAX_WINNERS = 100;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** A giveaway as the open/ended rules read it; `drawBlockHeight` is set once a version-2 giveaway's entries closed. */
export type GiveawayState = { active: boolean; endDate: Date; winnerAddress?: string | null; drawBlockHeight?: number | null };

const entriesClosed = (giveaway: Omit<GiveawayState, "active">) =>
  Boolean(giveaway.winnerAddress) || (giveaway.drawBlockHeight ?? null) !== null;

/**
 * Open means active with an end date still in the future, no winner drawn and entries not closed for a
 * draw: a drawn or drawing giveaway is closed everywhere (the server refuses entries to it too).
 */
export function isGiveawayOpen(giveaway: GiveawayState, at: Date): boolean {
  return giveaway.active && !entriesClosed(giveaway) && giveaway.endDate.getTime() > at.getTime();
}

/** Ended: past its end date, its entries closed for the draw, or its winner drawn (shown 'Ended', not 'Inactive'). */
export function isGiveawayEnded(giveaway: Omit<GiveawayState, "active">, at: Date): boolean {
  return entriesClosed(giveaway) || giveaway.endDate.getTime() <= at.getTime();
}

export function newDrawSeed(): { seed: string; commitment: string } {
  const seed = randomBytes(32);
  return { seed: bytesToHex(seed), commitment: bytesToHex(sha256(seed)) };
}

export function drawCommitmentOf(seedHex: string): string {
  return bytesToHex(sha256(hexToBytes(seedHex)));
}

export function winningTicket(seedHex: string, totalTickets: number): number {
  if (!Number.isSafeInteger(totalTickets) || totalTickets < 1) throw new RangeError("no tickets to draw from");
  const digest = sha256(new TextEncoder().encode(`spooks-draw:${seedHex}:${totalTickets}`));
  return Number(BigInt(`0x${bytesToHex(digest)}`) % BigInt(totalTickets));
}

export type DrawEntry = { id: number; address: string; tickets: number };

/** The winning entry: the one whose ticket range holds the winning ticket (entries in ascending id). */
export function drawWinner<E extends DrawEntry>(seedHex: string, entries: readonly E[]): E {
  const ordered = [...entries].sort((a, b) => a.id - b.id);
  const total = ordered.reduce((sum, entry) => sum + entry.tickets, 0);
  const ticket = winningTicket(seedHex, total);
  let before = 0;
  for (const entry of ordered) {
    if (ticket < before + entry.tickets) return entry;
    before += entry.tickets;
  }
  throw new Error("unreachable: ticket beyond ranges");
}

export type EntryStatus = "Won!" | "Active" | "Ended" | "Pending";

/** Spec: Won (isWinner), Active (open), Ended (past end), Pending (inactive before its end). */
export function entryStatus(entry: { isWinner: boolean }, giveaway: GiveawayState, at: Date): EntryStatus {
  if (entry.isWinner) return "Won!";
  if (isGiveawayOpen(giveaway, at)) return "Active";
  if (isGiveawayEnded(giveaway, at)) return "Ended";
  return "Pending";
}
