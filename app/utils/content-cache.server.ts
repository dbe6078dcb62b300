/**
 * Inscription pictures for GET /content/{id} (docs/decisions.md "Item images"): fetched once from the ord
 * server's /content/{id}, kept only when the bytes are a PNG, JPEG, GIF or WebP image no larger than
 * CONTENT_MAX_BYTES, and cached on disk under DATA_DIR/content-cache, one file per inscription id written
 * atomically (temp file, then rename). Inscription content never changes, so a cached file is never
 * fetched again. Concurrent first requests for one id share one fetch.
 *
 * Upstream failures (no answer, an error status, too large, not an image) are ContentUnavailable errors,
 * which the route answers 502. Nothing is written to disk for them, but each is remembered in memory for
 * its ord server and id (FAILURE_MEMORY_MS: a definitive answer for 5 minutes, a server in trouble for 30 s),
 * so repeated requests for an id that is not a usable picture do not fetch up to CONTENT_MAX_BYTES each time.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { fileTypeFromBuffer } from "file-type";
import { isInscriptionId } from "../domain/collections.ts";
import { IMAGE_MEDIA_TYPES } from "../domain/giveaways.ts";
import { requestLogger } from "./logger.server.ts";
import { readCapped, type CappedRead } from "./read-capped.server.ts";

export type ContentMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export type ContentCacheOptions = {
  /** The folder the files are kept in (DATA_DIR/content-cache). */
  dir: string;
  /** The ord server's base URL (ORD_URL, or the simulated chain's in demo mode); unset: nothing to fetch. */
  ordUrl: string | undefined;
  maxBytes: number;
  timeoutMs: number;
};

export type CachedContent = { mediaType: ContentMediaType; bytes: Uint8Array<ArrayBuffer> };

/**
 * The ord server could not give a usable picture (answered 502 by the route). `lasting`: its answer will not
 * change (not an image, too large, a 4xx), as opposed to a server in trouble (no answer, cut off, a 5xx).
 */
export class ContentUnavailable extends Error {
  constructor(
    message: string,
    readonly lasting = true,
  ) {
    super(message);
  }
}

/** How long a failure is remembered per ord server and id. */
export const FAILURE_MEMORY_MS = { lasting: 5 * 60_000, passing: 30_000 };
const MAX_REMEMBERED_FAILURES = 10_000;

/** Recent failures by `{ordUrl} {id}`, oldest first (a Map keeps insertion order). */
const failures = new Map<string, { error: ContentUnavailable; until: number }>();

function rememberedFailure(key: string): ContentUnavailable | null {
  const failure = failures.get(key);
  if (!failure) return null;
  if (failure.until > Date.now()) return failure.error;
  failures.delete(key);
  return null;
}

function rememberFailure(key: string, error: ContentUnavailable): void {
  failures.delete(key);
  if (failures.size >= MAX_REMEMBERED_FAILURES) failures.delete(failures.keys().next().value!);
  failures.set(key, { error, until: Date.now() + (error.lasting ? FAILURE_MEMORY_MS.lasting : FAILURE_MEMORY_MS.passing) });
}

/** Forgets every remembered failure (tests). */
export function forgetContentFailures(): void {
  failures.clear();
}

export const CONTENT_CACHE_FOLDER = "content-cache";

export function contentCacheDir(dataDir: string): string {
  return path.join(dataDir, CONTENT_CACHE_FOLDER);
}

/** Fetches in progress, by cache file: concurrent first requests wait for the same one. */
const inFlight = new Map<string, Promise<CachedContent>>();

/** The bytes' image type, or null when they are not one of the accepted images (svg is never accepted). */
export async function sniffContentType(bytes: Uint8Array): Promise<ContentMediaType | null> {
  const detected = await fileTypeFromBuffer(bytes);
  const mediaType = detected?.mime as ContentMediaType | undefined;
  return mediaType && IMAGE_MEDIA_TYPES.includes(mediaType) ? mediaType : null;
}

/** The inscription's picture, from the disk cache or else fetched (once) from the ord server and cached. */
export async function getContent(options: ContentCacheOptions, inscriptionId: string): Promise<CachedContent> {
  // The id names a file: only the strict inscription id shape (64 hex, 'i', digits) ever gets here.
  if (!isInscriptionId(inscriptionId)) throw new Error(`not an inscription id: ${inscriptionId}`);
  const file = path.join(options.dir, inscriptionId);
  const cached = await readCached(file);
  if (cached) return cached;
  const failureKey = `${options.ordUrl} ${inscriptionId}`;
  const failed = rememberedFailure(failureKey);
  if (failed) throw failed;
  let pending = inFlight.get(file);
  if (!pending) {
    pending = fetchAndStore(options, inscriptionId, file)
      .catch((error: unknown) => {
        if (error instanceof ContentUnavailable && options.ordUrl) rememberFailure(failureKey, error);
        throw error;
      })
      .finally(() => inFlight.delete(file));
    inFlight.set(file, pending);
  }
  return pending;
}

async function readCached(file: string): Promise<CachedContent | null> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await fs.readFile(file));
  } catch (error) {
    // Not cached yet; or a cache the disk cannot read (a file where the folder should be, no permission, an
    // I/O error), which, like a failed write, costs a fetch from the ord server, not the answer.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") requestLogger().warn({ msg: "content cache read failed", file, err: error });
    return null;
  }
  const mediaType = await sniffContentType(bytes);
  // Only checked images are ever written; anything else there (a damaged disk, a hand edit) is fetched again.
  return mediaType ? { mediaType, bytes } : null;
}

const formatSize = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;

async function fetchAndStore(options: ContentCacheOptions, inscriptionId: string, file: string): Promise<CachedContent> {
  const bytes = await fetchContent(options, inscriptionId);
  const mediaType = await sniffContentType(bytes);
  if (!mediaType) throw new ContentUnavailable("The inscription's content is not a PNG, JPEG, GIF or WebP image");
  await writeAtomically(file, bytes);
  return { mediaType, bytes };
}

async function fetchContent({ ordUrl, maxBytes, timeoutMs }: ContentCacheOptions, inscriptionId: string): Promise<Uint8Array<ArrayBuffer>> {
  if (!ordUrl) throw new ContentUnavailable("No ord server is configured");
  const tooLarge = () => new ContentUnavailable(`The inscription's content is larger than ${formatSize(maxBytes)}`);
  let response: Response;
  try {
    const { url, authorization } = withCredentialsAsHeader(`${ordUrl}/content/${inscriptionId}`);
    response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
      headers: { accept: "image/*", ...(authorization ? { authorization } : {}) },
    });
  } catch {
    throw new ContentUnavailable("The ord server did not answer", false);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new ContentUnavailable(`The ord server answered ${response.status} for this inscription's content`, response.status < 500);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = response.body.getReader();
  let read: CappedRead;
  try {
    read = await readCapped(reader, maxBytes);
  } catch {
    throw new ContentUnavailable("The ord server's answer was cut off", false);
  }
  if (!("bytes" in read)) {
    await reader.cancel().catch(() => {});
    throw tooLarge();
  }
  if (read.bytes.byteLength === 0) throw new ContentUnavailable("The inscription's content is empty");
  return read.bytes;
}

/** fetch refuses a URL with credentials (ORD_URL=https://user:pass@…): they go as Basic authorization instead. */
function withCredentialsAsHeader(text: string): { url: string; authorization?: string } {
  const url = new URL(text);
  if (!url.username && !url.password) return { url: text };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = "";
  url.password = "";
  return { url: url.href, authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** Writes to a temporary name in the same folder, then renames: a reader sees the whole file or none. */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(temp, bytes, { flag: "wx" });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    // A full or read-only disk costs a fetch next time, not this answer.
    requestLogger().warn({ msg: "content cache write failed", file, err: error });
  }
}
