/**
 * Recomputing the site's numbers from the log's entries alone (issue 34, item 4): every wallet's balance,
 * every giveaway's close and draw, every proposal's tally, with every signed message's signature checked.
 * `spooks-admin log verify` feeds it the entries it read through the tiles and compares the result with the
 * site's public API. Pure: no network, no database.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalEntries, commitmentOf, drawWinnersV2, type DrawEntryRow } from "../draw.ts";
import { drawWinner, type DrawEntry } from "../giveaways.ts";
import { parseVoteMessage } from "../messages.ts";
import { isValidSignedMessage } from "../signature.ts";
import { canonicalJson } from "./canonical.ts";
import { openCheckpoint } from "./client.ts";
import { parseVerifierKey } from "./note.ts";

type Entry = Record<string, unknown> & { type: string };

export type ReplayedDraw = {
  giveaway: number;
  version: number;
  winnersWanted: number;
  commitment: string | null;
  /** Tickets per address from the ledger's entries (and genesis), for the close's check. */
  tickets: Map<string, number>;
  /** Version 1: the entry rows (their ids from the ledger's references, or genesis), drawn over in id order. */
  rows: DrawEntry[];
  frozen: DrawEntryRow[] | null;
  drawn: { seed: string; blockHash: string | null; winners: string[] } | null;
};

type ReplayedVote = { address: string; option: number; weight: number; current: boolean };

export type Replay = {
  entries: number;
  balances: Map<string, number>;
  draws: Map<number, ReplayedDraw>;
  votes: Map<number, Map<number, ReplayedVote>>;
  deletedProposals: Set<number>;
  deletedGiveaways: Set<number>;
  /** What is wrong in the entries themselves: each names the entry's index. */
  problems: string[];
};

export function emptyReplay(): Replay {
  return {
    entries: 0,
    balances: new Map(),
    draws: new Map(),
    votes: new Map(),
    deletedProposals: new Set(),
    deletedGiveaways: new Set(),
    problems: [],
  };
}

const sha256Hex = (text: string) => bytesToHex(sha256(utf8ToBytes(text)));

/** A field as text (entries hold strings and numbers). */
const field = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? ""));

function drawOf(replay: Replay, giveaway: number): ReplayedDraw {
  let draw = replay.draws.get(giveaway);
  if (!draw) {
    draw = { giveaway, version: 2, winnersWanted: 1, commitment: null, tickets: new Map(), rows: [], frozen: null, drawn: null };
    replay.draws.set(giveaway, draw);
  }
  return draw;
}

function voteCast(replay: Replay, index: number, e: Entry): void {
  const proposal = Number(e.proposal);
  const address = field(e.address);
  const message = field(e.message);
  if (!isValidSignedMessage(message, address, field(e.signature))) {
    replay.problems.push(`entry ${index}: vote ${field(e.id)} on proposal ${proposal}: its signature does not verify`);
  }
  const parsed = parseVoteMessage(message);
  if (!parsed || parsed.proposalId !== proposal || parsed.optionId !== Number(e.option)) {
    replay.problems.push(
      `entry ${index}: vote ${field(e.id)} on proposal ${proposal}: its signed message does not name this proposal and option`,
    );
  }
  const staked = e.stakedAtStart as string[] | null;
  if (staked && staked.length !== Number(e.weight)) {
    replay.problems.push(`entry ${index}: vote ${field(e.id)} on proposal ${proposal}: its weight is not the number of items it names`);
  }
  let votes = replay.votes.get(proposal);
  if (!votes) replay.votes.set(proposal, (votes = new Map<number, ReplayedVote>()));
  if (e.supersedes !== null && e.supersedes !== undefined) {
    const replaced = votes.get(Number(e.supersedes));
    if (replaced) replaced.current = false;
  }
  votes.set(Number(e.id), {
    address,
    option: Number(e.option),
    weight: Number(e.weight),
    current: e.supersededBy === null || e.supersededBy === undefined,
  });
}

/** A giveaway entry's ledger reference: `giveaway:<id>:entry:<entry id>`. */
const ENTRY_REFERENCE = /^giveaway:\d+:entry:(\d+)$/;

/**
 * The winners a draw gives from what the log holds (null when it holds too little to say): version 2 from the
 * frozen entries, the seed and the block; version 1 one winner from the seed and the entry rows in id order.
 */
function recomputedWinners(draw: ReplayedDraw, version: number, seed: string, blockHash: string | null): string[] | null {
  if (version === 2) {
    return draw.frozen && blockHash ? drawWinnersV2(seed, blockHash, draw.frozen, draw.winnersWanted).map((pick) => pick.address) : null;
  }
  return draw.rows.length > 0 ? [drawWinner(seed, draw.rows).address] : [];
}

/** Applies one entry (its canonical JSON text) at `index`. */
export function replayEntry(replay: Replay, index: number, text: string): void {
  replay.entries++;
  let e: Entry;
  try {
    e = JSON.parse(text) as Entry;
  } catch {
    replay.problems.push(`entry ${index}: not JSON`);
    return;
  }
  if (canonicalJson(e) !== text) replay.problems.push(`entry ${index}: not canonical JSON (RFC 8785)`);
  switch (e.type) {
    case "genesis.balance":
      replay.balances.set(field(e.address), Number(e.units));
      break;
    case "ledger": {
      const address = field(e.address);
      replay.balances.set(address, (replay.balances.get(address) ?? 0) + Number(e.amount));
      if (e.kind === "giveaway_entry" && e.giveaway !== null) {
        const draw = drawOf(replay, Number(e.giveaway));
        draw.tickets.set(address, (draw.tickets.get(address) ?? 0) + Number(e.tickets));
        const row = ENTRY_REFERENCE.exec(field(e.reference ?? ""));
        if (row) draw.rows.push({ id: Number(row[1]), address, tickets: Number(e.tickets) });
      }
      break;
    }
    case "signed":
      if (!isValidSignedMessage(field(e.message), field(e.address), field(e.signature))) {
        replay.problems.push(`entry ${index}: the signed ${field(e.action)} message of ${field(e.address)} does not verify`);
      }
      break;
    case "vote":
    case "genesis.vote":
      voteCast(replay, index, e);
      break;
    case "giveaway":
    case "genesis.giveaway": {
      const draw = drawOf(replay, Number(e.giveaway));
      draw.version = Number(e.drawVersion);
      draw.winnersWanted = Number(e.winners);
      draw.commitment = field(e.commitment);
      if (e.type === "genesis.giveaway" && e.seed) {
        draw.drawn = { seed: field(e.seed), blockHash: (e.blockHash as string | null) ?? null, winners: e.winnerAddresses as string[] };
      }
      break;
    }
    case "genesis.giveaway_entry": {
      const draw = drawOf(replay, Number(e.giveaway));
      const address = field(e.address);
      draw.tickets.set(address, (draw.tickets.get(address) ?? 0) + Number(e.tickets));
      if (e.entry !== null && e.entry !== undefined) draw.rows.push({ id: Number(e.entry), address, tickets: Number(e.tickets) });
      break;
    }
    case "giveaway.close": {
      const draw = drawOf(replay, Number(e.giveaway));
      const frozen = canonicalEntries([...draw.tickets].map(([address, tickets]) => ({ address, tickets })));
      draw.frozen = frozen;
      if (sha256Hex(canonicalJson(frozen)) !== e.entriesSha256 || frozen.length !== Number(e.entries)) {
        replay.problems.push(
          `entry ${index}: giveaway ${field(e.giveaway)}: the entries it froze are not those its ledger entries add up to`,
        );
      }
      break;
    }
    case "giveaway.draw": {
      const giveaway = Number(e.giveaway);
      const draw = drawOf(replay, giveaway);
      const seed = field(e.seed);
      const winners = e.winners as string[];
      draw.drawn = { seed, blockHash: (e.blockHash as string | null) ?? null, winners };
      if (commitmentOf(seed) !== (draw.commitment ?? e.commitment)) {
        replay.problems.push(`entry ${index}: giveaway ${giveaway}: its seed does not match its commitment`);
      }
      const recomputed = recomputedWinners(draw, Number(e.version), seed, (e.blockHash as string | null) ?? null);
      if (recomputed && recomputed.join(",") !== winners.join(",")) {
        replay.problems.push(`entry ${index}: giveaway ${giveaway}: its winners are not those its seed, block and entries draw`);
      }
      break;
    }
    case "log.rotation": {
      // The first entry of a log a new key began: the old log's last checkpoint, signed by the old key.
      const previous = e.previous as { checkpoint?: unknown; verifierKey?: unknown; size?: unknown } | undefined;
      try {
        if (index !== 0) throw new Error("a log's key changes only at its first entry");
        const last = openCheckpoint(field(previous?.checkpoint ?? ""), parseVerifierKey(field(previous?.verifierKey ?? "")));
        if (last.size !== Number(previous?.size)) throw new Error("its last checkpoint is not of the size it says");
      } catch (error) {
        replay.problems.push(`entry ${index}: the hand-over from the previous key does not hold: ${(error as Error).message}`);
      }
      break;
    }
    case "audit": {
      const target = field(e.target ?? "");
      if (e.action === "proposal.delete") replay.deletedProposals.add(Number(target.replace("proposal:", "")));
      if (e.action === "giveaway.delete") replay.deletedGiveaways.add(Number(target.replace("giveaway:", "")));
      break;
    }
    default:
      break;
  }
}

/** A proposal's tally from its current votes: weight per option id. */
export function tallyOf(replay: Replay, proposal: number): Map<number, number> {
  const tally = new Map<number, number>();
  for (const vote of replay.votes.get(proposal)?.values() ?? []) {
    if (vote.current) tally.set(vote.option, (tally.get(vote.option) ?? 0) + vote.weight);
  }
  return tally;
}
