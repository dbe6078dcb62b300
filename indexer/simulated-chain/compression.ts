/**
 * Response compression as wonky-ord's tower-http 0.3.5 `CompressionLayer` (gzip and br features) does it:
 * the encoding is the first listed with the highest q-value among gzip, br and identity (others ignored);
 * bodies under 32 bytes and `image/*` bodies are never compressed.
 *
 * A body may come in parts; gzip compresses each part on its own (sync-flushed, byte-aligned deflate blocks)
 * and joins them into one gzip member, so a part shared by many answers (the padding of a benchmark's 20 KB
 * images) is compressed once and reused.
 */
import zlib from "node:zlib";

export type Encoding = "gzip" | "br" | "identity";

const MIN_COMPRESSED_SIZE = 32;
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const SYNC_FLUSH = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const sharedDeflated = new WeakMap<Buffer, Buffer>();

function parseQuality(text: string | undefined): number | null {
  if (text === undefined) return 1000;
  const match = /^[qQ]=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.exec(text.trim());
  return match ? Math.round(Number(match[1]) * 1000) : null;
}

export function preferredEncoding(acceptEncoding: string | undefined): Encoding {
  let best: Encoding = "identity";
  let bestQuality = 0;
  for (const item of (acceptEncoding ?? "").split(",")) {
    const [name, quality] = item.split(/;(.*)/s, 2);
    const encoding = name.trim().toLowerCase();
    if (encoding !== "gzip" && encoding !== "br" && encoding !== "identity") continue;
    const q = parseQuality(quality);
    if (q !== null && q > bestQuality) {
      best = encoding;
      bestQuality = q;
    }
  }
  return best;
}

export function shouldCompress(contentType: string, size: number): boolean {
  return size >= MIN_COMPRESSED_SIZE && !contentType.startsWith("image/");
}

function deflatePart(part: Buffer, last: boolean, shared: boolean): Buffer {
  if (last) return zlib.deflateRawSync(part);
  if (!shared) return zlib.deflateRawSync(part, SYNC_FLUSH);
  let deflated = sharedDeflated.get(part);
  if (!deflated) sharedDeflated.set(part, (deflated = zlib.deflateRawSync(part, SYNC_FLUSH)));
  return deflated;
}

/** One gzip member of the parts joined; `shared` parts are compressed once and remembered. */
export function gzipParts(parts: readonly Buffer[], shared: ReadonlySet<Buffer> = new Set()): Buffer[] {
  let crc = 0;
  let size = 0;
  const out: Buffer[] = [GZIP_HEADER];
  parts.forEach((part, i) => {
    crc = zlib.crc32(part, crc);
    size += part.length;
    out.push(deflatePart(part, i === parts.length - 1, shared.has(part)));
  });
  if (parts.length === 0) out.push(zlib.deflateRawSync(Buffer.alloc(0)));
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  out.push(trailer);
  return out;
}

/** The body parts as sent with `encoding` (the same parts for identity). */
export function encodeParts(parts: readonly Buffer[], encoding: Encoding, shared?: ReadonlySet<Buffer>): Buffer[] {
  if (encoding === "gzip") return gzipParts(parts, shared);
  if (encoding === "br") {
    const quality = { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 };
    return [zlib.brotliCompressSync(Buffer.concat(parts), { params: quality })];
  }
  return [...parts];
}
