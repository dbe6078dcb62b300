/**
 * The simulated chain's true state: a tip height and, per inscription, its history of moves (height, output,
 * satpoint). Reading "as of height h" takes the last move at or below h, which is all a rollback needs. A
 * reorg replaces the last blocks with a longer branch in which some moves never happened; such a move's
 * transaction can confirm again later (same transaction, so the same satpoint).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { OrdChain } from "../../app/domain/address.ts";
import { parseInscriptionId } from "./ord-shapes.ts";
import { addresslessOutput, outputForAddress, type AddresslessScript, type Output } from "./outputs.ts";

export const START_HEIGHT = 5_000_000;
/** Every item is inscribed well before the start, so no realistic rollback un-inscribes it. */
export const GENESIS_HEIGHT = START_HEIGHT - 10_000;
export const OUTPUT_VALUE = 100_000;

export type Move = { height: number; output: Output; satpoint: string };
export type Item = { inscriptionId: string; number: number; genesisFee: number; moves: Move[] };

export class UnknownInscriptionError extends Error {}

const hex = (label: string) => bytesToHex(sha256(new TextEncoder().encode(label)));

export function createLedger(owners: ReadonlyMap<string, string>, chain: OrdChain) {
  let height = START_HEIGHT;
  let sequence = 0;
  const items = new Map<string, Item>();
  const byNumber: string[] = [];
  /** Per item, the moves reorgs undid (newest last), which `reconfirm` can confirm again. */
  const undone = new Map<string, Move[]>();
  /** The fork height of every reorg: a block above a fork belongs to the branch that replaced it (a new hash). */
  const forks: number[] = [];

  for (const [inscriptionId, address] of owners) {
    const parsed = parseInscriptionId(inscriptionId);
    if (!parsed.ok || parsed.id !== inscriptionId) throw new Error(`not an inscription id as the server prints it: ${inscriptionId}`);
    const genesis = { height: GENESIS_HEIGHT, output: outputForAddress(address, chain), satpoint: `${inscriptionId.slice(0, 64)}:0:0` };
    const genesisFee = 100_000 + (parseInt(inscriptionId.slice(0, 4), 16) % 1000) * 1000;
    items.set(inscriptionId, { inscriptionId, number: byNumber.length, genesisFee, moves: [genesis] });
    byNumber.push(inscriptionId);
  }

  function item(inscriptionId: string): Item {
    const found = items.get(inscriptionId);
    if (!found) throw new UnknownInscriptionError(`unknown inscription ${inscriptionId}`);
    return found;
  }

  /** Confirms a move of the item to `output` in a new block, at a new satpoint. */
  function record(target: Item, output: Output): Move {
    sequence += 1;
    height += 1;
    const move = { height, output, satpoint: `${hex(`spooks-sim:${target.inscriptionId}:${sequence}`)}:${sequence % 3}:0` };
    target.moves.push(move);
    return move;
  }

  return {
    height: () => height,
    /** The hash of the block at `h` on the current branch (lowercase hex, as ord prints it). */
    blockHash: (h: number): string => hex(`spooks-sim-block:${h}:${forks.filter((fork) => fork < h).length}`),
    /** The moves confirmed in the block at `h`, with their inscription. */
    movesAt(h: number): { inscriptionId: string; move: Move; previous: Move | undefined }[] {
      const found: { inscriptionId: string; move: Move; previous: Move | undefined }[] = [];
      for (const target of items.values()) {
        target.moves.forEach((move, i) => {
          if (move.height === h && i > 0) found.push({ inscriptionId: target.inscriptionId, move, previous: target.moves[i - 1] });
        });
      }
      return found;
    },
    has: (inscriptionId: string) => items.has(inscriptionId),
    item: (inscriptionId: string) => items.get(inscriptionId),
    idOfNumber: (number: number): string | null => byNumber[number] ?? null,
    current: (inscriptionId: string): Move | undefined => items.get(inscriptionId)?.moves.at(-1),
    /** The item's move as of height `h`; undefined when unknown, or not yet inscribed at `h`. */
    at(inscriptionId: string, h: number): Move | undefined {
      return items.get(inscriptionId)?.moves.findLast((move) => move.height <= h);
    },
    mine(blocks = 1): number {
      if (!Number.isInteger(blocks) || blocks < 1) throw new RangeError("blocks must be a positive integer");
      height += blocks;
      return height;
    },
    transfer(inscriptionId: string, to: string): Move {
      const target = item(inscriptionId);
      return record(target, outputForAddress(to, chain));
    },
    moveToScript(inscriptionId: string, script: AddresslessScript): Move {
      const target = item(inscriptionId);
      return record(target, addresslessOutput(script, `${inscriptionId}:${sequence}`));
    },
    moveWithinOwner(inscriptionId: string): Move {
      const target = item(inscriptionId);
      return record(target, target.moves.at(-1)!.output);
    },
    /**
     * The last `depth` blocks are replaced by a branch `longerBy` blocks longer, in which the moves of `undo`
     * made in those blocks never happened (every other move is in the new branch too). Returns the new height.
     */
    reorg(depth: number, undo: readonly string[], longerBy = 1): number {
      if (!Number.isInteger(depth) || depth < 1) throw new RangeError("depth must be a positive integer");
      if (!Number.isInteger(longerBy) || longerBy < 0) throw new RangeError("longerBy must be a whole number");
      const fork = height - depth;
      forks.push(fork);
      for (const inscriptionId of undo) {
        const target = item(inscriptionId);
        const orphaned = target.moves.filter((move) => move.height > fork);
        if (orphaned.length === 0 || target.moves.length - orphaned.length < 1) {
          throw new Error(`${inscriptionId} did not move in the last ${depth} blocks`);
        }
        target.moves = target.moves.filter((move) => move.height <= fork);
        undone.set(inscriptionId, [...(undone.get(inscriptionId) ?? []), ...orphaned]);
      }
      height += longerBy;
      return height;
    },
    /** The oldest move a reorg undid for this item confirms again in a new block: same output, same satpoint. */
    reconfirm(inscriptionId: string): Move {
      const target = item(inscriptionId);
      const pending = undone.get(inscriptionId) ?? [];
      const again = pending.shift();
      if (!again) throw new Error(`no move of ${inscriptionId} was undone by a reorg`);
      height += 1;
      const move = { ...again, height };
      target.moves.push(move);
      return move;
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
