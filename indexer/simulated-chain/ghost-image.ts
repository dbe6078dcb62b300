/**
 * The simulated chain's inscription content: a small PNG ghost per inscription id, its colours and features
 * drawn from sha256 of the id, so every demo item gets its own picture, the same on every run.
 *
 * `contentBytes` pads each file to a chosen size (a private ancillary PNG chunk of noise, which image
 * decoders skip), as a real 20 KB image would be. The bulk of that noise is one buffer shared by every
 * item, so a 20,000-item chain does not hold 20,000 copies of it.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import zlib from "node:zlib";

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
export const GHOST_CONTENT_TYPE = "image/png";

const GRID = 16;
const SCALE = 8;
const SIZE = GRID * SCALE;
/** "spOk": ancillary (s), private (p), reserved bit clear (O), safe to copy (k). */
const PAD_CHUNK_TYPE = Buffer.from("spOk", "latin1");
const CHUNK_OVERHEAD = 12; // length, type, CRC
/** Unpadded ghosts stay under this size; the shared noise leaves this much room for each item's own. */
const MAX_GHOST_BYTES = 400;

/**
 * One item's content in three parts: `head` and `tail` are the item's own, `bulk` is shared by every item
 * (empty without padding). The file is head + bulk + tail.
 */
export type ItemContent = { contentType: string; head: Buffer; bulk: Buffer; tail: Buffer };

type Rgb = [number, number, number];
const BACKGROUND = 0;
const SPECKLE = 1;
const BODY = 2;
const OUTLINE = 3;
const FACE = 4;
const ACCESSORY = 5;

function hsl(hue: number, saturation: number, lightness: number): Rgb {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}

function palette(seed: Uint8Array): Rgb[] {
  const backgroundHue = (seed[0] / 256) * 360;
  const bodyHue = (backgroundHue + 120 + (seed[1] / 256) * 120) % 360;
  const accessoryHue = (seed[2] / 256) * 360;
  return [
    hsl(backgroundHue, 0.45, 0.14 + seed[3] / 2560),
    hsl(backgroundHue, 0.6, 0.72),
    hsl(bodyHue, 0.55 + seed[4] / 1024, 0.84 + seed[5] / 2560),
    hsl(bodyHue, 0.35, 0.5),
    hsl(bodyHue, 0.4, 0.08),
    hsl(accessoryHue, 0.8, 0.5),
  ];
}

function isBody(x: number, y: number, wavePeriod: number, wavePhase: number): boolean {
  if (x < 2 || x > 13 || y < 2 || y > 14) return false;
  if (y <= 7) return (x - 7.5) ** 2 + (y - 7.5) ** 2 <= 5.6 ** 2; // the round head
  if (y < 14) return true;
  return (x + wavePhase) % wavePeriod !== 0; // the ragged hem
}

function drawFace(grid: Uint8Array, seed: Uint8Array) {
  const set = (x: number, y: number) => (grid[y * GRID + x] = FACE);
  const eyes = seed[6] % 4;
  for (const x of eyes === 3 ? [7] : [5, 9]) {
    set(x, 6);
    if (eyes !== 2) set(x, 7); // 2: sleepy, one row high
    if (eyes === 0 || eyes === 3) {
      // 0, 3: big square eyes
      set(x + 1, 6);
      set(x + 1, 7);
    }
  }
  const mouth = seed[7] % 4;
  if (mouth === 1) {
    set(7, 10);
    set(8, 10);
  }
  if (mouth === 2) for (let x = 5; x <= 10; x++) set(x, x === 5 || x === 10 ? 9 : 10);
  if (mouth === 3) for (let x = 5; x <= 10; x++) set(x, 10 + (x % 2));
}

function drawAccessory(grid: Uint8Array, seed: Uint8Array) {
  const set = (x: number, y: number) => (grid[y * GRID + x] = ACCESSORY);
  const kind = seed[8] % 4;
  if (kind === 1) {
    // a hat: a brim on row 2, the crown above its middle
    for (let x = 4; x <= 11; x++) set(x, 2);
    for (let x = 6; x <= 9; x++) {
      set(x, 1);
      set(x, 0);
    }
  }
  if (kind === 2) {
    // a bow: a 3×2 block on the right
    for (let x = 11; x <= 13; x++) {
      set(x, 2);
      set(x, 3);
    }
  }
  if (kind === 3) for (let x = 5; x <= 10; x++) set(x, 0); // a halo
}

/** The 16×16 sprite as palette indices. */
function sprite(seed: Uint8Array): Uint8Array {
  const grid = new Uint8Array(GRID * GRID);
  const wavePeriod = 2 + (seed[9] % 3);
  const wavePhase = seed[10] % wavePeriod;
  const inside = (x: number, y: number) => x >= 0 && x < GRID && y >= 0 && y < GRID && isBody(x, y, wavePeriod, wavePhase);
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      if (!inside(x, y)) continue;
      const edge = !inside(x - 1, y) || !inside(x + 1, y) || !inside(x, y - 1) || !inside(x, y + 1);
      grid[y * GRID + x] = edge ? OUTLINE : BODY;
    }
  }
  for (let i = 0; i < 6; i++) {
    const cell = seed[11 + i];
    if (grid[cell] === BACKGROUND) grid[cell] = SPECKLE;
  }
  drawFace(grid, seed);
  drawAccessory(grid, seed);
  return grid;
}

/** Filter-0 scanlines of the sprite scaled up SCALE times, two 4-bit palette indices a byte. */
function scanlines(grid: Uint8Array): Buffer {
  const rowBytes = 1 + SIZE / 2;
  const raw = Buffer.alloc(SIZE * rowBytes);
  for (let y = 0; y < SIZE; y++) {
    const cells = Math.floor(y / SCALE) * GRID;
    for (let x = 0; x < SIZE; x += 2) {
      raw[y * rowBytes + 1 + x / 2] = (grid[cells + Math.floor(x / SCALE)] << 4) | grid[cells + Math.floor((x + 1) / SCALE)];
    }
  }
  return raw;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const typeBytes = Buffer.from(type, "latin1");
  const out = Buffer.alloc(CHUNK_OVERHEAD + data.length);
  out.writeUInt32BE(data.length, 0);
  typeBytes.copy(out, 4);
  out.set(data, 8);
  out.writeUInt32BE(zlib.crc32(data, zlib.crc32(typeBytes)), 8 + data.length);
  return out;
}

const EMPTY = Buffer.alloc(0);
const IEND = chunk("IEND", EMPTY);

/** The ghost PNG of `inscriptionId`, without its IEND chunk. */
function ghostWithoutEnd(inscriptionId: string): Buffer {
  const seed = sha256(new TextEncoder().encode(`spooks-ghost:${inscriptionId}`));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([4, 3, 0, 0, 0], 8); // 4-bit palette indices, deflate, no filter, no interlace
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("PLTE", Buffer.from(palette(seed).flat())),
    // Rows repeat 65 bytes apart: a small window compresses as well and sets up far faster.
    chunk("IDAT", zlib.deflateSync(scanlines(sprite(seed)), { level: 9, windowBits: 10, memLevel: 4 })),
  ]);
}

/** Deterministic noise (mulberry32) standing in for compressed image data, which looks random. */
function noise(length: number): Buffer {
  const out = Buffer.alloc(length);
  let state = 0x5eed5;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (t ^ (t >>> 14)) >>> 24;
  }
  return out;
}

function padChunkStart(dataLength: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32BE(dataLength, 0);
  PAD_CHUNK_TYPE.copy(out, 4);
  return out;
}

/**
 * Makes each item's content, padded to `contentBytes` when given (never below the bare ghost, which is a few
 * hundred bytes). Results are cached per id.
 */
export function contentMaker(contentBytes?: number): (inscriptionId: string) => ItemContent {
  const sharedLength = contentBytes === undefined ? 0 : Math.max(0, contentBytes - CHUNK_OVERHEAD - MAX_GHOST_BYTES);
  const bulk = noise(sharedLength);
  const crcAfterBulk = zlib.crc32(bulk, zlib.crc32(PAD_CHUNK_TYPE));
  const spare = noise(MAX_GHOST_BYTES + sharedLength).subarray(sharedLength);
  const cache = new Map<string, ItemContent>();

  function make(inscriptionId: string): ItemContent {
    const ghost = ghostWithoutEnd(inscriptionId);
    const padLength = contentBytes === undefined ? -1 : contentBytes - ghost.length - IEND.length - CHUNK_OVERHEAD;
    if (padLength < 0) return { contentType: GHOST_CONTENT_TYPE, head: ghost, bulk: EMPTY, tail: IEND };
    // The shared bulk when it fits; the rest from `spare`, or all from the bulk for an unusually big ghost.
    const shared = sharedLength > 0 && padLength >= sharedLength ? bulk : EMPTY;
    const ownLength = padLength - shared.length;
    const ownBytes = ownLength <= spare.length ? spare.subarray(0, ownLength) : bulk.subarray(0, ownLength);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(ownBytes, shared.length ? crcAfterBulk : zlib.crc32(PAD_CHUNK_TYPE)));
    return {
      contentType: GHOST_CONTENT_TYPE,
      head: Buffer.concat([ghost, padChunkStart(padLength)]),
      bulk: shared,
      tail: Buffer.concat([ownBytes, crc, IEND]),
    };
  }

  return (inscriptionId) => {
    let content = cache.get(inscriptionId);
    if (!content) cache.set(inscriptionId, (content = make(inscriptionId)));
    return content;
  };
}

export const contentBytesOf = (content: ItemContent): Buffer => Buffer.concat([content.head, content.bulk, content.tail]);
