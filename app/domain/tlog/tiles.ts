/**
 * C2SP tlog-tiles v0.1.0: tile paths, which tiles a tree size has, entry bundles, and a hash reader over
 * tiles (so proofs are made from what any mirror serves). A tile holds 256 hashes; level 0 the leaf hashes,
 * level l ≥ 1 the roots of the full tiles below.
 */
import { HASH_SIZE, rootOf, type Hash, type HashReader } from "./merkle.ts";

export const TILE_WIDTH = 256;
/** Tree levels per tile level (2^8 = 256). */
export const TILE_HEIGHT = 8;
export const MAX_ENTRY_BYTES = 65_535;

/** 1234067 → `x001/x234/067`. */
export function tileIndexPath(index: number): string {
  let rest = index;
  const groups = [String(rest % 1000).padStart(3, "0")];
  rest = Math.floor(rest / 1000);
  while (rest > 0) {
    groups.unshift(`x${String(rest % 1000).padStart(3, "0")}`);
    rest = Math.floor(rest / 1000);
  }
  return groups.join("/");
}

/** `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]` (width 256: a full tile, no suffix). */
export function tilePath(level: number | "entries", index: number, width = TILE_WIDTH): string {
  const partial = width < TILE_WIDTH ? `.p/${width}` : "";
  return `tile/${level}/${tileIndexPath(index)}${partial}`;
}

export type TileRef = { level: number | "entries"; index: number; width: number };

/** The tile a path (after the log's prefix) names, or null. Indexes are read strictly (no leading zeros beyond the groups). */
export function parseTilePath(path: string): TileRef | null {
  const match = /^tile\/(entries|[0-9]|[1-5][0-9]|6[0-3])\/((?:x[0-9]{3}\/)*)([0-9]{3})(\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  if (!match) return null;
  const groups = [
    ...match[2]
      .split("/")
      .filter(Boolean)
      .map((group) => group.slice(1)),
    match[3],
  ];
  if (groups.length > 1 && groups[0] === "000") return null;
  const index = groups.reduce((value, group) => value * 1000 + Number(group), 0);
  const width = match[4] === undefined ? TILE_WIDTH : Number(match[5]);
  if (!Number.isSafeInteger(index) || width > TILE_WIDTH || (match[4] !== undefined && width === TILE_WIDTH)) return null;
  return { level: levelOf(match[1]), index, width };
}

const levelOf = (text: string) => (text === "entries" ? "entries" : Number(text));

/** How many hashes tile level `level` holds for a tree of `size` leaves. */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/** Every tile of a tree of `size` leaves at tile level `level`: the full ones, then the partial one if any. */
export function tilesAt(size: number, level: number): TileRef[] {
  const count = hashesAtLevel(size, level);
  const full = Math.floor(count / TILE_WIDTH);
  const tiles: TileRef[] = [];
  for (let index = 0; index < full; index++) tiles.push({ level, index, width: TILE_WIDTH });
  if (count % TILE_WIDTH > 0) tiles.push({ level, index: full, width: count % TILE_WIDTH });
  return tiles;
}

/** The tile of level `level` holding hash `index` at that level, as it is for a tree of `size`. */
export function tileFor(size: number, level: number, index: number): TileRef {
  const tileIndex = Math.floor(index / TILE_WIDTH);
  const count = hashesAtLevel(size, level);
  const width = Math.min(TILE_WIDTH, count - tileIndex * TILE_WIDTH);
  if (width <= index % TILE_WIDTH) throw new RangeError(`hash ${index} of level ${level} is not in a tree of size ${size}`);
  return { level, index: tileIndex, width };
}

/** Entries as a bundle: each a big-endian uint16 length, then its bytes. */
export function encodeBundle(entries: readonly Uint8Array[]): Uint8Array {
  const total = entries.reduce((sum, entry) => sum + 2 + entry.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_BYTES) throw new RangeError(`an entry is at most ${MAX_ENTRY_BYTES} bytes`);
    out[at] = Math.floor(entry.length / 256);
    out[at + 1] = entry.length % 256;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

export function decodeBundle(bundle: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.length) {
    if (at + 2 > bundle.length) throw new Error("an entry bundle ends inside a length");
    const length = bundle[at] * 256 + bundle[at + 1];
    if (at + 2 + length > bundle.length) throw new Error("an entry bundle ends inside an entry");
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** Reads a tile's bytes (null: not found). */
export type TileFetcher = (path: string) => Promise<Uint8Array | null>;

export function splitHashes(bytes: Uint8Array): Hash[] {
  if (bytes.length % HASH_SIZE !== 0) throw new Error("a tile is a whole number of hashes");
  const hashes: Hash[] = [];
  for (let at = 0; at < bytes.length; at += HASH_SIZE) hashes.push(bytes.slice(at, at + HASH_SIZE));
  return hashes;
}

/**
 * A HashReader over the tiles of a tree of `size` (merkle.ts makes proofs with it): the subtree of height h
 * is hashed from the 2^(h mod 8) hashes of its tile level. Tiles are fetched once each.
 */
export function tileHashReader(size: number, fetchTile: TileFetcher): HashReader {
  const tiles = new Map<string, Promise<Hash[]>>();
  const tile = (ref: TileRef) => {
    const path = tilePath(ref.level, ref.index, ref.width);
    let hashes = tiles.get(path);
    if (!hashes) {
      hashes = fetchTile(path).then((bytes) => {
        if (!bytes) throw new Error(`tile ${path} is missing`);
        const found = splitHashes(bytes);
        if (found.length !== ref.width) throw new Error(`tile ${path} holds ${found.length} hashes, not ${ref.width}`);
        return found;
      });
      hashes.catch(() => tiles.delete(path));
      tiles.set(path, hashes);
    }
    return hashes;
  };
  return async (height, index) => {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height % TILE_HEIGHT);
    const first = index * span;
    const ref = tileFor(size, level, first + span - 1);
    const hashes = await tile(ref);
    const offset = first - ref.index * TILE_WIDTH;
    return rootOf(hashes.slice(offset, offset + span));
  };
}
