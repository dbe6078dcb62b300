/**
 * RFC 9162 §2.1 Merkle trees over SHA-256: leaf and node hashes, the root of n leaves, inclusion and
 * consistency proofs (made over a hash reader, checked with the RFC's algorithms literally). Indexes and
 * sizes are plain numbers handled with division and multiplication only: `>>`, `&` and `|` would cut them
 * to 32 bits. Pure functions: the server, the browser's worker and the CLI share them.
 */
import { sha256 } from "@noble/hashes/sha2.js";

export type Hash = Uint8Array;

export const HASH_SIZE = 32;

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = sha256(new Uint8Array(0));

export function hashLeaf(entry: Uint8Array): Hash {
  const data = new Uint8Array(entry.length + 1);
  data[0] = 0;
  data.set(entry, 1);
  return sha256(data);
}

export function hashChildren(left: Hash, right: Hash): Hash {
  const data = new Uint8Array(1 + left.length + right.length);
  data[0] = 1;
  data.set(left, 1);
  data.set(right, 1 + left.length);
  return sha256(data);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** The largest power of two smaller than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Whether n is a safe whole number ≥ 0 (an index or a size). */
const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

/** The root of D[0:n] from its n leaf hashes (small trees: tests, partial tiles). */
export function rootOf(leaves: readonly Hash[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0];
  const k = splitPoint(leaves.length);
  return hashChildren(rootOf(leaves.slice(0, k)), rootOf(leaves.slice(k)));
}

/**
 * What proofs are made from: the hash of a complete, aligned subtree, the one of height `level` whose
 * leaves are [index × 2^level, (index + 1) × 2^level). Async, so a reader may fetch tiles.
 */
export type HashReader = (level: number, index: number) => Promise<Hash>;

/** The hash of D[start:end], from complete subtrees: the largest aligned one at each step, right ones folded last. */
export async function subtreeHash(read: HashReader, start: number, end: number): Promise<Hash> {
  if (end <= start) throw new Error(`empty range [${start}, ${end})`);
  const parts: Hash[] = [];
  let at = start;
  while (at < end) {
    let size = 1;
    let level = 0;
    while (at % (size * 2) === 0 && at + size * 2 <= end) {
      size *= 2;
      level++;
    }
    parts.push(await read(level, at / size));
    at += size;
  }
  let hash = parts[parts.length - 1];
  for (let i = parts.length - 2; i >= 0; i--) hash = hashChildren(parts[i], hash);
  return hash;
}

/** PATH(m, D[start:end]) of RFC 9162 §2.1.3.1, with subtree hashes from `read`. */
async function path(read: HashReader, m: number, start: number, end: number): Promise<Hash[]> {
  const n = end - start;
  if (n <= 1) return [];
  const k = splitPoint(n);
  if (m < k) return [...(await path(read, m, start, start + k)), await subtreeHash(read, start + k, end)];
  return [...(await path(read, m - k, start + k, end)), await subtreeHash(read, start, start + k)];
}

/** The inclusion proof of leaf `index` in the tree of size `size`. */
export async function inclusionProof(read: HashReader, index: number, size: number): Promise<Hash[]> {
  if (!isCount(index) || !isCount(size) || index >= size) throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
  return path(read, index, 0, size);
}

/** SUBPROOF(m, D[start:end], b) of RFC 9162 §2.1.4.1. */
async function subproof(read: HashReader, m: number, start: number, end: number, whole: boolean): Promise<Hash[]> {
  const n = end - start;
  if (m === n) return whole ? [] : [await subtreeHash(read, start, end)];
  const k = splitPoint(n);
  if (m <= k) return [...(await subproof(read, m, start, start + k, whole)), await subtreeHash(read, start + k, end)];
  return [...(await subproof(read, m - k, start + k, end, false)), await subtreeHash(read, start, start + k)];
}

/** The consistency proof from size `from` to size `to` (empty when they are equal or `from` is 0). */
export async function consistencyProof(read: HashReader, from: number, to: number): Promise<Hash[]> {
  if (!isCount(from) || !isCount(to) || from > to) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  return subproof(read, from, 0, to, true);
}

export class ProofError extends Error {}

/** RFC 9162 §2.1.3.2, step by step. Throws ProofError when the proof does not hold. */
export function verifyInclusion(index: number, size: number, leafHash: Hash, proof: readonly Hash[], root: Hash): void {
  if (!isCount(index) || !isCount(size) || index >= size) throw new ProofError(`leaf ${index} is not in a tree of size ${size}`);
  if (leafHash.length !== HASH_SIZE) throw new ProofError(`a leaf hash is ${HASH_SIZE} bytes`);
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) throw new ProofError("the inclusion proof is too long");
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new ProofError("the inclusion proof is too short");
  if (!equalBytes(r, root)) throw new ProofError("the inclusion proof does not lead to the root");
}

/**
 * RFC 9162 §2.1.4.2, step by step, with transparency-dev/merkle's edges: second < first and first = 0 are
 * errors; first = second needs an empty proof and equal roots.
 */
export function verifyConsistency(first: number, second: number, firstRoot: Hash, secondRoot: Hash, proof: readonly Hash[]): void {
  if (!isCount(first) || !isCount(second)) throw new ProofError("sizes must be whole numbers");
  if (second < first) throw new ProofError(`size ${second} is smaller than ${first}`);
  if (first === 0) throw new ProofError("there is no consistency proof from the empty tree");
  if (first === second) {
    if (proof.length > 0) throw new ProofError("equal sizes need an empty proof");
    if (!equalBytes(firstRoot, secondRoot)) throw new ProofError("equal sizes with different roots");
    return;
  }
  if (proof.length === 0) throw new ProofError("the consistency proof is empty");
  // Step 1: when first is an exact power of two, prepend first_hash to the path.
  let isPowerOfTwo = 1;
  while (isPowerOfTwo < first) isPowerOfTwo *= 2;
  const path = isPowerOfTwo === first ? [firstRoot, ...proof] : [...proof];
  // Steps 2-3.
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  // Step 4.
  let fr = path[0];
  let sr = path[0];
  // Step 5.
  for (const c of path.slice(1)) {
    if (sn === 0) throw new ProofError("the consistency proof is too long");
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  // Step 6.
  if (sn !== 0) throw new ProofError("the consistency proof is too short");
  if (!equalBytes(fr, firstRoot)) throw new ProofError("the consistency proof does not lead to the first root");
  if (!equalBytes(sr, secondRoot)) throw new ProofError("the consistency proof does not lead to the second root");
}

/**
 * The right edge of a growing tree (a compact range from 0): the hashes of its complete subtrees, tallest
 * first. Appending a leaf merges equal heights like a binary counter; `onNode` hears every complete subtree
 * made (height, index, hash), which is how tiles are filled.
 */
export type Frontier = { size: number; hashes: Hash[] };

export const emptyFrontier = (): Frontier => ({ size: 0, hashes: [] });

export function appendLeaf(frontier: Frontier, leaf: Hash, onNode?: (level: number, index: number, hash: Hash) => void): Frontier {
  const hashes = [...frontier.hashes];
  let hash = leaf;
  let level = 0;
  let index = frontier.size;
  onNode?.(0, index, hash);
  while (index % 2 === 1) {
    hash = hashChildren(hashes.pop()!, hash);
    level++;
    index = Math.floor(index / 2);
    onNode?.(level, index, hash);
  }
  hashes.push(hash);
  return { size: frontier.size + 1, hashes };
}

/** The root of the tree the frontier describes. */
export function frontierRoot(frontier: Frontier): Hash {
  if (frontier.hashes.length === 0) return EMPTY_ROOT;
  let hash = frontier.hashes[frontier.hashes.length - 1];
  for (let i = frontier.hashes.length - 2; i >= 0; i--) hash = hashChildren(frontier.hashes[i], hash);
  return hash;
}
