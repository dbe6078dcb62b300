/**
 * The public log as C2SP tlog-tiles files (docs/transparency.md): GET /log/checkpoint (the latest signed
 * checkpoint with its witnesses' cosignatures, cached a few seconds at most), /log/key (the verifier key),
 * /log/tile/<L>/<N>[.p/<W>] (hashes) and /log/tile/entries/<N>[.p/<W>] (entry bundles), full tiles immutable; the
 * same under /log/previous/<n>/ for a log a key rotation ended (its last checkpoint, its key, its tiles).
 */
import { notFound } from "../domain/errors.ts";
import { parseTilePath, TILE_WIDTH } from "../domain/tlog/tiles.ts";
import { apiRoute, onlyMethods } from "../utils/api.server.ts";
import { entryTile, hashTile, latestCheckpoint, logVerifierKey, previousLog, servedNote } from "../../db/queries/log.server.ts";
import { IMMUTABLE_CACHE_CONTROL } from "./content.ts";
import type { Route } from "./+types/log-files";

const text = (body: string, cacheControl: string) =>
  new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": cacheControl } });

/** `previous/<n>/…`: a log a key rotation ended (docs/transparency.md, "Key rotation"), read as the current one is. */
const PREVIOUS = /^previous\/([1-9][0-9]{0,8})\/(.*)$/;

export const loader = apiRoute<Route.LoaderArgs>(async ({ params, context }) => {
  // No splat: the route of /log/checkpoint itself (app/routes.ts).
  let path = params["*"] ?? "checkpoint";
  let previous: number | null = null;
  const older = PREVIOUS.exec(path);
  if (older) [previous, path] = [Number(older[1]), older[2]];
  const ended = previous === null ? null : await previousLog(context.sql, previous);
  if (previous !== null && !ended) throw notFound("The site has no such previous log");
  if (path === "checkpoint") {
    if (ended) return text(ended.note, IMMUTABLE_CACHE_CONTROL);
    const checkpoint = await latestCheckpoint(context.sql);
    if (!checkpoint) throw notFound("The log has no checkpoint yet");
    return text(servedNote(checkpoint), "public, max-age=2");
  }
  if (path === "key") {
    const key = ended ? ended.verifierKey : await logVerifierKey(context.sql);
    if (!key) throw notFound("The log has no key yet");
    return text(`${key}\n`, "public, max-age=300");
  }
  const tile = parseTilePath(path);
  if (!tile) throw notFound("Not a file of the log");
  const bytes =
    tile.level === "entries"
      ? await entryTile(context.sql, tile.index, tile.width, previous)
      : await hashTile(context.sql, tile.level, tile.index, tile.width, previous);
  if (!bytes) throw notFound("The log has no such tile (yet)");
  return new Response(new Uint8Array(bytes), {
    headers: {
      "Content-Type": "application/octet-stream",
      "Content-Length": String(bytes.byteLength),
      // A full tile never changes; a partial one is replaced by a wider one as the log grows, but what it holds never changes.
      "Cache-Control": tile.width === TILE_WIDTH || ended ? IMMUTABLE_CACHE_CONTROL : "public, max-age=3600",
    },
  });
});

export const action = onlyMethods("GET");
