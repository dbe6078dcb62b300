/**
 * Reading a tiled log as a client that trusts only the log's verifier key (and its witnesses'): open a
 * signed checkpoint, prove it consistent with one kept from before, read entries and leaf hashes through the
 * tiles. Used by the browser's worker and by `spooks-admin log verify`; the server serves, never checks itself.
 */
import { parseCheckpoint, verifyCosignatures, type Checkpoint } from "./checkpoint.ts";
import { consistencyProof, hashLeaf, inclusionProof, rootOf, verifyConsistency, verifyInclusion, type Hash } from "./merkle.ts";
import { formatVerifierKey, NoteError, openNote, type Verifier } from "./note.ts";
import { decodeBundle, splitHashes, tileHashReader, tilePath, TILE_WIDTH, type TileFetcher } from "./tiles.ts";

export type Witnessing = { witnesses: readonly Verifier[]; quorum: number };

/** The checkpoint a note signs, checked: the log's signature, its origin, and `quorum` witness cosignatures. */
export function openCheckpoint(note: string, log: Verifier, witnessing: Witnessing = { witnesses: [], quorum: 0 }): Checkpoint {
  const { text } = openNote(note, [log]);
  const checkpoint = parseCheckpoint(text);
  if (checkpoint.origin !== log.name) throw new NoteError(`the checkpoint's origin ${checkpoint.origin} is not the key's name ${log.name}`);
  if (witnessing.quorum > 0) {
    const cosigned = verifyCosignatures(note, witnessing.witnesses);
    if (cosigned.length < witnessing.quorum) {
      throw new NoteError(`the checkpoint has ${cosigned.length} witness cosignature(s), ${witnessing.quorum} required`);
    }
  }
  return checkpoint;
}

/** Proves `next` consistent with `kept` from `next`'s tiles (throws ProofError or NoteError when it is not). */
export async function proveConsistent(fetchTile: TileFetcher, kept: Checkpoint, next: Checkpoint): Promise<void> {
  if (next.origin !== kept.origin) throw new NoteError(`origin ${next.origin} is not ${kept.origin}`);
  if (next.size < kept.size) throw new NoteError(`the log shrank from ${kept.size} to ${next.size} entries`);
  if (kept.size === 0) return;
  const proof = await consistencyProof(tileHashReader(next.size, fetchTile), kept.size, next.size);
  verifyConsistency(kept.size, next.size, kept.root, next.root, proof);
}

/** Proves entry `index` (its bytes) included in `checkpoint`, from the tiles. */
export async function proveIncluded(fetchTile: TileFetcher, checkpoint: Checkpoint, index: number, entry: Uint8Array): Promise<Hash[]> {
  const proof = await inclusionProof(tileHashReader(checkpoint.size, fetchTile), index, checkpoint.size);
  verifyInclusion(index, checkpoint.size, hashLeaf(entry), proof, checkpoint.root);
  return proof;
}

/** The first entry of a log a new key began (migration 0040, log_rotate): the old log, ended at its last checkpoint. */
export type Rotation = {
  type: "log.rotation";
  verifierKey: string;
  previous: { origin: string; verifierKey: string; checkpoint: string; size: number; tiles: string };
};

/**
 * Proves the hand-over from the key a checkpoint was kept of to the log's new key, before trusting it: entry 0
 * of `next`'s log (`fetchTile`) is a rotation to `newKey` from `keptKey`, included in `next`; the old log's last
 * checkpoint it holds is signed by `keptKey` and contains the kept checkpoint (a consistency proof from the old
 * log's tiles, `previousTiles`). Answers the rotation; throws NoteError or ProofError when any of it fails.
 */
export async function proveHandOver(
  fetchTile: TileFetcher,
  previousTiles: (rotation: Rotation) => TileFetcher,
  kept: { note: string; key: Verifier },
  next: Checkpoint,
  newKey: string,
): Promise<Rotation> {
  const keptKey = formatVerifierKey(kept.key);
  if (next.size < 1) throw new NoteError(`the log's key changed from ${keptKey} to ${newKey}, and the new log is empty`);
  const [first] = await readEntryTile(fetchTile, next.size, 0);
  await proveIncluded(fetchTile, next, 0, first);
  const rotation = JSON.parse(new TextDecoder().decode(first)) as Partial<Rotation>;
  if (rotation.type !== "log.rotation" || rotation.verifierKey !== newKey || rotation.previous?.verifierKey !== keptKey) {
    throw new NoteError(`the log's key changed from ${keptKey} to ${newKey} without a hand-over from the key this checkpoint was kept of`);
  }
  const last = openCheckpoint(rotation.previous.checkpoint, kept.key);
  if (last.size !== rotation.previous.size) throw new NoteError("the hand-over's last checkpoint is not of the size it says");
  await proveConsistent(previousTiles(rotation as Rotation), openCheckpoint(kept.note, kept.key), last);
  return rotation as Rotation;
}

/** The entries of entry tile `tileIndex` as of a tree of `size`. */
export async function readEntryTile(fetchTile: TileFetcher, size: number, tileIndex: number): Promise<Uint8Array[]> {
  const width = Math.min(TILE_WIDTH, size - tileIndex * TILE_WIDTH);
  const path = tilePath("entries", tileIndex, width);
  const bytes = await fetchTile(path);
  if (!bytes) throw new Error(`${path} is missing`);
  const entries = decodeBundle(bytes);
  if (entries.length !== width) throw new Error(`${path} holds ${entries.length} entries, not ${width}`);
  return entries;
}

/**
 * Reads every entry of the tree of `size` through the tiles, in order, checking each tile's entries against
 * its level-0 tile, and answers the root recomputed from the leaf hashes (compare it with the checkpoint's).
 * `concurrency` tiles are fetched at once.
 */
export async function readAllEntries(
  fetchTile: TileFetcher,
  size: number,
  onEntries: (firstIndex: number, entries: Uint8Array[]) => void | Promise<void>,
  concurrency = 8,
): Promise<Hash> {
  const tiles = Math.ceil(size / TILE_WIDTH);
  const leaves: Hash[] = [];
  const load = async (tileIndex: number) => {
    const width = Math.min(TILE_WIDTH, size - tileIndex * TILE_WIDTH);
    const [entries, hashesBytes] = await Promise.all([readEntryTile(fetchTile, size, tileIndex), fetchTile(tilePath(0, tileIndex, width))]);
    if (!hashesBytes) throw new Error(`${tilePath(0, tileIndex, width)} is missing`);
    const hashes = splitHashes(hashesBytes);
    const leafHashes = entries.map(hashLeaf);
    leafHashes.forEach((hash, i) => {
      if (!hashes[i] || hash.some((byte, j) => byte !== hashes[i][j])) {
        throw new Error(`entry ${tileIndex * TILE_WIDTH + i} does not hash to its level-0 tile`);
      }
    });
    return { entries, leafHashes };
  };
  const pending = new Map<number, ReturnType<typeof load>>();
  for (let tileIndex = 0; tileIndex < tiles; tileIndex++) {
    for (let ahead = tileIndex; ahead < Math.min(tiles, tileIndex + concurrency); ahead++) {
      if (!pending.has(ahead)) pending.set(ahead, load(ahead));
    }
    const { entries, leafHashes } = await pending.get(tileIndex)!;
    pending.delete(tileIndex);
    await onEntries(tileIndex * TILE_WIDTH, entries);
    for (const hash of leafHashes) leaves.push(hash);
  }
  return treeRootOfLeaves(leaves);
}

/** The root of many leaves without recursion over slices: level by level, as RFC 9162 splits. */
export function treeRootOfLeaves(leaves: readonly Hash[]): Hash {
  if (leaves.length <= 2) return rootOf(leaves);
  // Complete subtrees of 2^k leaves from the left, then fold right to left (the RFC's split).
  const parts: Hash[] = [];
  let at = 0;
  while (at < leaves.length) {
    let size = 1;
    while (at + size * 2 <= leaves.length && at % (size * 2) === 0) size *= 2;
    let level = leaves.slice(at, at + size);
    while (level.length > 1) {
      const next: Hash[] = [];
      for (let i = 0; i < level.length; i += 2) next.push(rootOf([level[i], level[i + 1]]));
      level = next;
    }
    parts.push(level[0]);
    at += size;
  }
  let hash = parts[parts.length - 1];
  for (let i = parts.length - 2; i >= 0; i--) hash = rootOf([parts[i], hash]);
  return hash;
}
