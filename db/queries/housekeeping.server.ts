/**
 * Housekeeping: removes rows whose use is over (expired challenges and sessions, used signatures past
 * their window, ownership passes past their retention, the rate limits' ended windows), in batches of at most `batch` rows, each its own
 * statement and oldest first through an index, repeated until a batch comes back short. No statement
 * ever holds a large lock or reads a whole table, however much has piled up.
 */
import { SYNC_RUN_RETENTION_MS, USED_SIGNATURE_RETENTION_MS } from "../../app/domain/retention.ts";
import type { Queryable } from "../client.server.ts";
import { deleteExpiredChallenges, deleteExpiredSessions } from "./auth.server.ts";
import { deleteEndedWindows } from "./rate-limits.server.ts";

export const HOUSEKEEPING_BATCH = 1000;

export type Pruned = {
  challenges: number;
  sessions: number;
  usedSignatures: number;
  syncRuns: number;
  rateLimitHits: number;
  batches: number;
};

/** Deletes up to `limit` rows through `deleteBatch` at a time until fewer come back; answers rows and batches. */
export async function inBatches(deleteBatch: (limit: number) => Promise<{ count: number }>, limit: number) {
  let rows = 0;
  let batches = 0;
  for (;;) {
    const { count } = await deleteBatch(limit);
    rows += count;
    batches++;
    if (count < limit) return { rows, batches };
  }
}

export async function pruneExpired(sql: Queryable, at: Date, batch = HOUSEKEEPING_BATCH): Promise<Pruned> {
  const signaturesBefore = new Date(at.getTime() - USED_SIGNATURE_RETENTION_MS);
  const runsBefore = new Date(at.getTime() - SYNC_RUN_RETENTION_MS);
  const challenges = await inBatches((limit) => deleteExpiredChallenges(sql, at, limit), batch);
  const sessions = await inBatches((limit) => deleteExpiredSessions(sql, at, limit), batch);
  // Through the database's own function (migration 0026): the app's role may not delete used signatures itself,
  // and the function never removes one used within the last hour by the database's clock, whatever `at` says.
  const usedSignatures = await inBatches(async (limit) => {
    const [row] = await sql<{ count: number }[]>`select prune_used_signatures(${signaturesBefore}, ${limit}) as count`;
    return { count: row.count };
  }, batch);
  // The last applied pass and every pass after it stay whatever their age: the indexer's health reads
  // when it last applied one and how many were held back since.
  const syncRuns = await inBatches(
    (limit) => sql`
      delete from sync_runs where id in (
        select id from sync_runs
        where finished_at < ${runsBefore}
          and id < coalesce((select max(id) from sync_runs where state = 'ok'), 0)
        order by id limit ${limit})`,
    batch,
  );
  // The web servers delete these as they come (server/rate-limit-store.ts); this catches what they left.
  const rateLimitHits = await inBatches((limit) => deleteEndedWindows(sql, limit), batch);
  return {
    challenges: challenges.rows,
    sessions: sessions.rows,
    usedSignatures: usedSignatures.rows,
    syncRuns: syncRuns.rows,
    rateLimitHits: rateLimitHits.rows,
    batches: challenges.batches + sessions.batches + usedSignatures.batches + syncRuns.batches + rateLimitHits.batches,
  };
}
