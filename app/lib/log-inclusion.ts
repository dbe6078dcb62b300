/**
 * A points-history row checked in the public log, in the browser (issue 34, item 3): its entry read through
 * the log's entry tiles, its inclusion proof from /api/log/proof checked against the checkpoint this browser
 * keeps (verified and kept by app/lib/log-witness.ts), and the entry compared with the row. Loaded on demand.
 */
import { UNITS_PER_POINT } from "../domain/rewards.ts";
import { openCheckpoint, readEntryTile } from "../domain/tlog/client.ts";
import { hashLeaf, verifyInclusion, type Hash } from "../domain/tlog/merkle.ts";
import { fromBase64, parseVerifierKey } from "../domain/tlog/note.ts";
import { TILE_WIDTH } from "../domain/tlog/tiles.ts";
import { httpTiles } from "./log-check.ts";
import { keptCheckpoint, witnessOnce } from "./log-witness.ts";

/** The row as the history shows it: the ledger row's id and its change in points. */
export type LedgerRow = { id: number; delta: number };

export type InclusionResult =
  | { state: "included"; index: number; size: number }
  /** The entry is newer than any checkpoint this browser has verified (it is signed within a minute). */
  | { state: "pending"; index: number; size: number }
  | { state: "failed"; reason: string };

async function proofOf(index: number, size: number): Promise<Hash[]> {
  const response = await fetch(`/api/log/proof/${index}?size=${size}`, { cache: "no-store" });
  if (!response.ok) throw new Error(`the site did not answer the proof (HTTP ${response.status})`);
  const { hashes } = (await response.json()) as { hashes: string[] };
  return hashes.map((text) => {
    const hash = fromBase64(text);
    if (!hash || hash.length !== 32) throw new Error("the proof holds something that is not a hash");
    return hash;
  });
}

/** Checks that entry `index` of the public log is `row`, and that it is in the checkpoint this browser keeps. */
export async function checkRowInLog(index: number, row: LedgerRow): Promise<InclusionResult> {
  try {
    let kept = keptCheckpoint();
    // A row newer than the kept checkpoint: check the site's latest first (the footer's check), then prove.
    if (!kept || index >= kept.size) {
      await witnessOnce();
      kept = keptCheckpoint();
    }
    if (!kept) return { state: "failed", reason: "this browser has not verified a checkpoint of the public log yet" };
    if (index >= kept.size) return { state: "pending", index, size: kept.size };
    const checkpoint = openCheckpoint(kept.note, parseVerifierKey(kept.verifierKey));
    const entries = await readEntryTile(httpTiles(window.location.origin), checkpoint.size, Math.floor(index / TILE_WIDTH));
    const entry = entries[index % TILE_WIDTH];
    verifyInclusion(index, checkpoint.size, hashLeaf(entry), await proofOf(index, checkpoint.size), checkpoint.root);
    const logged = JSON.parse(new TextDecoder().decode(entry)) as { type?: string; id?: number; amount?: number };
    if (logged.type !== "ledger" || logged.id !== row.id || logged.amount !== Math.round(row.delta * UNITS_PER_POINT)) {
      return { state: "failed", reason: `entry ${index} of the log is not this row` };
    }
    return { state: "included", index, size: checkpoint.size };
  } catch (error) {
    return { state: "failed", reason: (error as Error).message };
  }
}
