/**
 * What the browser's worker does with each new checkpoint (issue 34, item 3): open it with the log's pinned
 * key (and the witnesses' quorum), then prove it consistent with the one this browser kept, from the tiles.
 * Plain functions over fetch, so the worker, a page and a test share them.
 */
import { verifyCosignatures } from "../domain/tlog/checkpoint.ts";
import { openCheckpoint, proveConsistent, proveHandOver, type Rotation, type Witnessing } from "../domain/tlog/client.ts";
import { NoteError, parseVerifierKey } from "../domain/tlog/note.ts";
import type { TileFetcher } from "../domain/tlog/tiles.ts";

export type CheckRequest = {
  keptNote: string | null;
  /** The key the kept checkpoint is of (the one pinned at the first visit). */
  keptKey: string | null;
  verifierKey: string;
  witnesses: string[];
  quorum: number;
  base: string;
};

export type CheckResult =
  | { status: "ok"; note: string; size: number }
  /** Consistent, but without the cosignatures LOG_WITNESS_QUORUM requires: not kept (yet), no evidence of anything. */
  | { status: "unwitnessed"; size: number; cosigned: number; quorum: number }
  | { status: "fork"; reason: string; keptNote: string | null; newNote: string }
  | { status: "error"; reason: string };

/** The tiles of the log at `base` (its /log/), or of an ended one at `prefix` (/log/previous/<n>/). */
export function httpTiles(base: string, prefix = "/log/"): TileFetcher {
  return async (path) => {
    const response = await fetch(`${base}${prefix}${path}`);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
}

/** How many of `witnesses` cosigned `note` (a cosignature that does not verify does not count). */
function cosignatures(note: string, witnessing: Witnessing): number {
  try {
    return verifyCosignatures(note, witnessing.witnesses).length;
  } catch {
    return 0;
  }
}

/**
 * The site's latest checkpoint checked against the one this browser kept: signed by the pinned key, then
 * consistent with the kept one (anything else is evidence: a fork), then cosigned by as many witnesses as the
 * site's quorum asks (else it is not kept yet).
 */
export async function checkLatestCheckpoint(request: CheckRequest, fetchTile: TileFetcher = httpTiles(request.base)): Promise<CheckResult> {
  let newNote: string;
  try {
    const response = await fetch(`${request.base}/log/checkpoint`, { cache: "no-store" });
    if (!response.ok) return { status: "error", reason: `/log/checkpoint: HTTP ${response.status}` };
    newNote = await response.text();
  } catch (error) {
    return { status: "error", reason: (error as Error).message };
  }
  const log = parseVerifierKey(request.verifierKey);
  const witnessing: Witnessing = { witnesses: request.witnesses.map(parseVerifierKey), quorum: request.quorum };
  try {
    const next = openCheckpoint(newNote, log);
    if (request.keptNote && request.keptKey && request.keptKey !== request.verifierKey) {
      // A new key: trusted only through a hand-over from the kept one (docs/transparency.md, "Key rotation").
      const previousTiles = ({ previous }: Rotation) => {
        if (!/^\/log\/previous\/\d+\/$/.test(previous.tiles))
          throw new NoteError(`the old log's tiles are not the site's own (${previous.tiles})`);
        return httpTiles(request.base, previous.tiles);
      };
      await proveHandOver(
        fetchTile,
        previousTiles,
        { note: request.keptNote, key: parseVerifierKey(request.keptKey) },
        next,
        request.verifierKey,
      );
    } else if (request.keptNote) {
      const kept = openCheckpoint(request.keptNote, log);
      await proveConsistent(fetchTile, kept, next);
      if (kept.size === next.size) return { status: "ok", note: request.keptNote, size: kept.size };
    }
    const cosigned = cosignatures(newNote, witnessing);
    if (cosigned < witnessing.quorum) return { status: "unwitnessed", size: next.size, cosigned, quorum: witnessing.quorum };
    return { status: "ok", note: newNote, size: next.size };
  } catch (error) {
    const reason = (error as Error).message;
    // A tile that could not be fetched is no evidence; a bad signature, a smaller tree or a failed proof is.
    if (/HTTP|fetch|network/i.test(reason)) return { status: "error", reason };
    return { status: "fork", reason, keptNote: request.keptNote, newNote };
  }
}
