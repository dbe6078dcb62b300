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

export type EntryStatus = "Won!" | GiveawayStatusLabel;

/**
 * The spec's "Won!" for a winning entry; any other entry says its giveaway's state in the one word the admin and
 * the CLI say it with (issue 33, item 7: "Drawn", "Drawing", "Inactive" for the spec's "Pending", "Ended", "Active").
 */
export function entryStatus(entry: { isWinner: boolean }, giveaway: GiveawayState & { drawn?: boolean }, at: Date): EntryStatus {
  if (entry.isWinner) return "Won!";
  return giveawayStatusLabel(
    {
      active: giveaway.active,
      endDate: giveaway.endDate,
      drawn: giveaway.drawn ?? Boolean(giveaway.winnerAddress),
      drawBlockHeight: giveaway.drawBlockHeight ?? null,
    },
    at,
  );
}

/** A giveaway's state in one word, as the admin list and `spooks-admin giveaways list` say it. */
export type GiveawayStatusLabel = "Drawn" | "Drawing" | "Inactive" | "Ended" | "Active";

/**
 * Drawn (its winners are known: nothing more happens), Drawing (entries closed at a block, waiting for it),
 * Inactive (ended by the admin), Ended (past its end date, not yet closed by the indexer), else Active.
 */
export function giveawayStatusLabel(
  giveaway: { active: boolean; endDate: Date; drawn: boolean; drawBlockHeight: number | null },
  at: Date,
): GiveawayStatusLabel {
  if (giveaway.drawn) return "Drawn";
  if (giveaway.drawBlockHeight !== null) return "Drawing";
  if (!giveaway.active) return "Inactive";
  return giveaway.endDate.getTime() > at.getTime() ? "Active" : "Ended";
}

/** How a closed version-2 giveaway's draw stands: blocks still to be mined before the indexer can draw it. */
export type DrawProgress = {
  /** The chain's block count as the indexer last read it. */
  blockCount: number;
  /** Blocks still to come before the draw block has its six on top (0: the next draw pass draws it). */
  blocksToGo: number;
  /** About how long that takes at the chain's block interval, in whole minutes (at least 1 while blocks remain). */
  minutesToGo: number;
};

/** Dogecoin's target block interval. */
export const DOGECOIN_BLOCK_MS = 60_000;
/** The demo's simulated chain mines a block this often (server/demo.server.ts). */
export const DEMO_BLOCK_MS = 10_000;

/** The block interval the draw's "about {m} min" counts with: the demo chain's in demo mode, else Dogecoin's. */
export function blockIntervalMs(config: { demo: boolean }): number {
  return config.demo ? DEMO_BLOCK_MS : DOGECOIN_BLOCK_MS;
}

/** The indexer draws once /block-count ≥ blockHeight + 7 (app/domain/draw.ts, isDrawable). */
export function drawProgressOf(blockHeight: number, blockCount: number, blockMs: number = DOGECOIN_BLOCK_MS): DrawProgress {
  const blocksToGo = Math.max(0, blockHeight + 7 - blockCount);
  return { blockCount, blocksToGo, minutesToGo: blocksToGo === 0 ? 0 : Math.max(1, Math.ceil((blocksToGo * blockMs) / 60_000)) };
}

/** "{n} blocks to go, about {m} min" (issue 27, item 8); at 0 blocks the draw is at the indexer's next pass. */
export function drawProgressText(progress: DrawProgress): string {
  if (progress.blocksToGo === 0) return "Drawing now";
  const blocks = progress.blocksToGo === 1 ? "1 block" : `${progress.blocksToGo} blocks`;
  return `${blocks} to go, about ${progress.minutesToGo} min`;
}

/** The first of `times` (ms) after `at`, or null: when a status that depends on the clock changes next. */
export function nextBoundary(times: readonly number[], at: number): number | null {
  let next: number | null = null;
  for (const time of times) if (time > at && (next === null || time < next)) next = time;
  return next;
}

/**
 * Why the server would refuse an entry now, in the holder's words (issue 27, rule 3: an action the server
 * would refuse is disabled with its reason); null while the giveaway is open.
 */
export function entryClosedReason(giveaway: GiveawayState & { drawn: boolean }, at: Date): string | null {
  if (isGiveawayOpen(giveaway, at) && !giveaway.drawn) return null;
  if (giveaway.drawn || giveaway.winnerAddress) return "Entries are closed: the winners are drawn.";
  if ((giveaway.drawBlockHeight ?? null) !== null) return `Entries are closed: drawing at block ${giveaway.drawBlockHeight}.`;
  if (giveaway.endDate.getTime() <= at.getTime()) return "Entries are closed: this giveaway has ended.";
  return "Entries are closed: the admin ended this giveaway.";
}
