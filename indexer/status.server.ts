/** What the indexer last did, for `spooks-admin indexer status` and /api/health. */
import type { Queryable } from "../db/client.server.ts";
import { lastAccrualRun, lastCreditedHour, type AccrualRun } from "../db/queries/accrual.server.ts";
import { heldBackPasses, highestBlockCount, lastSyncRun, type SyncRun } from "../db/queries/ownership.server.ts";

export type IndexerStatus = {
  /** The latest sync pass (any source: scheduled, startup or CLI), or null before the first. */
  lastSync: SyncRun | null;
  /** The highest block count a pass has seen (the rollback guard's floor), or null before the first. */
  highestBlockCount: number | null;
  /** Passes held back (rewinding, stalled, unavailable) since the last applied pass, and in all. */
  heldBack: { inARow: number; total: number };
  /** The latest hour credited (start of the hour, UTC), or null when none. */
  lastCreditedHour: Date | null;
  /** The accrual run that finished last. */
  lastAccrual: AccrualRun | null;
};

export async function indexerStatus(sql: Queryable): Promise<IndexerStatus> {
  return {
    lastSync: await lastSyncRun(sql),
    highestBlockCount: await highestBlockCount(sql),
    heldBack: await heldBackPasses(sql),
    lastCreditedHour: await lastCreditedHour(sql),
    lastAccrual: await lastAccrualRun(sql),
  };
}
