/**
 * Draw version 2 (operator-blind) and the verifier of both draw versions (DECISIONS "Draw version 2",
 * docs/fairness.md). Pure: it runs in the browser (the "Verify this draw" view), in Node (server, indexer,
 * CLI) and needs nothing but SHA-256.
 *
 * Version 2: a 32-byte seed is committed at creation (commitment = hex(SHA-256(seed bytes))). When entries
 * close (at `closedAt`) the draw block is fixed at blockHeight = B + 6 (B: the ord server's /block-count
 * then; giveaways closed before issue 23 have B + 1) and the entries freeze, one row per address, in
 * ascending byte order of the address. Holders check that block blockHeight was mined after closedAt. Once blockHeight has six
 * blocks on top, blockHash is that block's hash, and for k = 0, 1, … while k < winners and entries remain:
 *   t = uint256(SHA-256(utf8("spooks-draw-v2:" + seed + ":" + blockHash + ":" + k))) mod T
 * (T = tickets of the remaining entries); the remaining entry whose range [before, before + tickets) holds t
 * wins and is removed. Version 1 (app/domain/giveaways.ts) draws one winner from entry rows in id order.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { winningTicket } from "./giveaways.ts";

/** Blocks on top of the draw block before its hash is used. */
export const DRAW_CONFIRMATIONS = 6;

/**
 * The draw block lies this many blocks beyond the ord server's next one (B = its /block-count): an ord
 * server lagging its node by up to six blocks still names a block nobody has mined (DECISIONS "Draw version 2").
 */
export const DRAW_BLOCK_OFFSET = 6;

/** A public Dogecoin (mainnet) block explorer's page for a height: where holders check when the block was mined. */
export function blockExplorerUrl(height: number): string {
  return `https://blockchair.com/dogecoin/block/${height}`;
}

export type DrawVersion = 1 | 2;
export type DrawEntryRow = { address: string; tickets: number };

/** What GET /api/giveaways/{id}/draw publishes: everything needed to recompute the draw. */
export type PublishedDraw = {
  version: DrawVersion;
  commitment: string;
  seed: string | null;
  blockHeight: number | null;
  /** Version 2: when entries closed and the draw block was fixed (ISO 8601); null while open and for version 1. */
  closedAt: string | null;
  blockHash: string | null;
  winners: number;
  entries: DrawEntryRow[];
  winnerAddresses: string[];
  /** Demo mode: the block is the simulated chain's (GET /api/giveaways/{id}/draw says so). */
  simulatedChain?: boolean;
};

const HEX_64 = /^[0-9a-f]{64}$/;
const plural = (count: number, singular: string, many = `${singular}s`) => `${count} ${count === 1 ? singular : many}`;
const encoder = new TextEncoder();

/** The draw block fixed when entries close: six beyond the ord server's next block (a server may lag its node). */
export function drawBlockHeightFor(blockCount: number): number {
  return blockCount + DRAW_BLOCK_OFFSET;
}

/** The draw block has six blocks on top: /block-count ≥ blockHeight + 7. */
export function isDrawable(blockHeight: number, blockCount: number): boolean {
  return blockCount >= blockHeight + DRAW_CONFIRMATIONS + 1;
}

export function commitmentOf(seedHex: string): string {
  return bytesToHex(sha256(hexToBytes(seedHex)));
}

/**
 * Byte order of the addresses' UTF-8 text (what Postgres' `collate "C"` sorts by). UTF-8 orders as code
 * points do, so the first differing code point decides, without encoding either string.
 */
export function compareAddresses(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

/** One row per address with the sum of its tickets, in ascending byte order of the address. */
export function canonicalEntries(rows: readonly DrawEntryRow[]): DrawEntryRow[] {
  const tickets = new Map<string, number>();
  for (const row of rows) tickets.set(row.address, (tickets.get(row.address) ?? 0) + row.tickets);
  return [...tickets].map(([address, sum]) => ({ address, tickets: sum })).sort((a, b) => compareAddresses(a.address, b.address));
}

/** The text whose SHA-256 picks the k-th winner (0-based). */
export function drawMessageV2(seedHex: string, blockHash: string, k: number): string {
  return `spooks-draw-v2:${seedHex}:${blockHash}:${k}`;
}

export function ticketV2(seedHex: string, blockHash: string, k: number, totalTickets: number): number {
  const digest = sha256(encoder.encode(drawMessageV2(seedHex, blockHash, k)));
  return Number(BigInt(`0x${bytesToHex(digest)}`) % BigInt(totalTickets));
}

/** One pick of a v2 draw: the k-th ticket t of T remaining tickets fell in `address`'s range. */
export type DrawPick = { k: number; ticket: number; totalTickets: number; address: string };

/** The winners of a v2 draw, in draw order, from the canonical entries. */
export function drawWinnersV2(seedHex: string, blockHash: string, entries: readonly DrawEntryRow[], winners: number): DrawPick[] {
  const remaining = [...entries];
  const picks: DrawPick[] = [];
  let total = remaining.reduce((sum, entry) => sum + entry.tickets, 0);
  for (let k = 0; k < winners && remaining.length > 0; k++) {
    const ticket = ticketV2(seedHex, blockHash, k, total);
    const index = rangeHolding(remaining, ticket);
    const [winner] = remaining.splice(index, 1);
    picks.push({ k, ticket, totalTickets: total, address: winner.address });
    total -= winner.tickets;
  }
  return picks;
}

function rangeHolding(entries: readonly DrawEntryRow[], ticket: number): number {
  let before = 0;
  for (let i = 0; i < entries.length; i++) {
    before += entries[i].tickets;
    if (ticket < before) return i;
  }
  throw new RangeError("ticket beyond the entries' ranges");
}

// Verification -------------------------------------------------------------------------------------

export type DrawStep = "commitment" | "entries" | "block" | "winner" | "winner-count";

/**
 * A step of the check, as the verify view and the CLI show it; `link` is where the holder checks it further.
 * `pending`: nothing to check yet (no seed revealed, no block fixed or read): shown as pending, never as
 * agreeing (issue 33, item 10); such a step does not fail the check either.
 */
export type StepResult = { step: DrawStep; title: string; ok: boolean; detail: string; link?: string; pending?: boolean };

/**
 * `verified`: every step agrees; `pending`: not drawn yet (no seed), the steps that can be checked agree;
 * `failed`: `steps` ends with the first step that disagrees.
 */
export type DrawVerdict = { outcome: "verified" | "pending" | "failed"; steps: StepResult[] };

const pass = (step: DrawStep, title: string, detail: string): StepResult => ({ step, title, ok: true, detail });
const fail = (step: DrawStep, title: string, detail: string): StepResult => ({ step, title, ok: false, detail });
const waiting = (step: DrawStep, title: string, detail: string): StepResult => ({ step, title, ok: true, detail, pending: true });

function checkCommitment(draw: PublishedDraw): StepResult {
  const title = "The seed matches the commitment";
  if (draw.seed === null) return waiting("commitment", title, "The seed is not revealed yet: it is checked once drawn.");
  if (!HEX_64.test(draw.seed)) return fail("commitment", title, `The seed ${JSON.stringify(draw.seed)} is not 64 lowercase hex digits.`);
  const computed = commitmentOf(draw.seed);
  return computed === draw.commitment
    ? pass("commitment", title, `SHA-256(seed bytes) = ${computed}`)
    : fail("commitment", title, `SHA-256(seed bytes) = ${computed}, but the commitment published at creation is ${draw.commitment}.`);
}

function checkEntries(draw: PublishedDraw): StepResult {
  const title = draw.version === 2 ? "Entries are one per address, in ascending address order" : "Entries hold whole tickets";
  for (let i = 0; i < draw.entries.length; i++) {
    const { address, tickets } = draw.entries[i];
    if (typeof address !== "string" || address === "") return fail("entries", title, `Entry ${i + 1} has no address.`);
    if (!Number.isSafeInteger(tickets) || tickets < 1) {
      return fail("entries", title, `Entry ${i + 1} (${address}) holds ${String(tickets)} tickets, not a whole number of at least 1.`);
    }
    if (draw.version === 2 && i > 0 && compareAddresses(draw.entries[i - 1].address, address) >= 0) {
      return fail("entries", title, `Entry ${i + 1} (${address}) does not come after entry ${i} (${draw.entries[i - 1].address}).`);
    }
  }
  const total = draw.entries.reduce((sum, entry) => sum + entry.tickets, 0);
  return pass("entries", title, `${plural(draw.entries.length, "entry", "entries")}, ${plural(total, "ticket")}.`);
}

function checkBlock(draw: PublishedDraw): StepResult {
  const title = "The draw block";
  if (draw.blockHeight === null) return waiting("block", title, "Entries are still open: the draw block is fixed when they close.");
  if (!Number.isSafeInteger(draw.blockHeight) || draw.blockHeight < 0) {
    return fail("block", title, `The block height ${String(draw.blockHeight)} is not a block height.`);
  }
  if (draw.closedAt === null || Number.isNaN(Date.parse(draw.closedAt))) {
    return fail("block", title, `Block ${draw.blockHeight} is published without the time entries closed (closedAt).`);
  }
  const minedAfter = `Check that block ${draw.blockHeight} was mined after entries closed at ${draw.closedAt}: nobody could know its hash then.`;
  const link = blockExplorerUrl(draw.blockHeight);
  if (draw.blockHash === null) {
    return {
      ...waiting("block", title, `Block ${draw.blockHeight}: its hash is read once 6 blocks sit on top of it. ${minedAfter}`),
      link,
    };
  }
  if (!HEX_64.test(draw.blockHash)) {
    return fail("block", title, `The hash ${JSON.stringify(draw.blockHash)} of block ${draw.blockHeight} is not 64 lowercase hex digits.`);
  }
  const compare = `Block ${draw.blockHeight} has hash ${draw.blockHash}: compare it with any Dogecoin block explorer.`;
  return { ...pass("block", title, `${compare} ${minedAfter}`), link };
}

function checkWinnerCount(draw: PublishedDraw, drawn: number): StepResult {
  const title = "The number of winners";
  return draw.winnerAddresses.length === drawn
    ? pass(
        "winner-count",
        title,
        `${plural(drawn, "winner")} of ${draw.winners} wanted, ${plural(draw.entries.length, "entry", "entries")}.`,
      )
    : fail("winner-count", title, `The draw gives ${plural(drawn, "winner")}, but ${draw.winnerAddresses.length} are published.`);
}

function checkPick(draw: PublishedDraw, pick: DrawPick, message: string): StepResult {
  const title = `Winner ${pick.k + 1}`;
  const published = draw.winnerAddresses[pick.k];
  const how = `SHA-256("${message}") mod ${pick.totalTickets} = ticket ${pick.ticket}, held by ${pick.address}.`;
  return published === pick.address
    ? pass("winner", title, how)
    : fail("winner", title, `${how} The published winner ${pick.k + 1} is ${published ?? "missing"}.`);
}

function picksOf(draw: PublishedDraw, seed: string): { pick: DrawPick; message: string }[] {
  if (draw.entries.length === 0) return [];
  if (draw.version === 1) {
    const total = draw.entries.reduce((sum, entry) => sum + entry.tickets, 0);
    const ticket = winningTicket(seed, total);
    const address = draw.entries[rangeHolding(draw.entries, ticket)].address;
    return [{ pick: { k: 0, ticket, totalTickets: total, address }, message: `spooks-draw:${seed}:${total}` }];
  }
  return drawWinnersV2(seed, draw.blockHash!, draw.entries, draw.winners).map((pick) => ({
    pick,
    message: drawMessageV2(seed, draw.blockHash!, pick.k),
  }));
}

/** Recomputes a published draw; stops at the first step that disagrees. */
export function verifyDraw(draw: PublishedDraw): DrawVerdict {
  const steps: StepResult[] = [];
  const checks = [checkCommitment, checkEntries, ...(draw.version === 2 ? [checkBlock] : [])];
  for (const check of checks) {
    const result = check(draw);
    steps.push(result);
    if (!result.ok) return { outcome: "failed", steps };
  }
  if (draw.seed === null || (draw.version === 2 && draw.blockHash === null)) {
    if (draw.winnerAddresses.length > 0) {
      steps.push(fail("winner-count", "The number of winners", "Winners are published before the draw could run."));
      return { outcome: "failed", steps };
    }
    return { outcome: "pending", steps };
  }
  const picks = picksOf(draw, draw.seed);
  for (const { pick, message } of picks) {
    const result = checkPick(draw, pick, message);
    steps.push(result);
    if (!result.ok) return { outcome: "failed", steps };
  }
  const count = checkWinnerCount(draw, picks.length);
  steps.push(count);
  return { outcome: count.ok ? "verified" : "failed", steps };
}
