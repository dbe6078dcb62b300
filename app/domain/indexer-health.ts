/**
 * Whether the indexer is healthy: an ownership pass was APPLIED within the allowed time (INDEXER_STALE_AFTER_S).
 * Held-back passes do not count: while the ord server is down, rewinding or stalled the indexer keeps running
 * passes but changes nothing, and that must show (container health check, /api/health, metrics).
 */
export type IndexerPassRecord = {
  lastAppliedSyncAt: Date | null;
  heldBackPassesInARow: number;
  /** The last pass's state and reason (why it was held back). */
  syncState: string | null;
  syncReason: string | null;
};

export type IndexerVerdict = { healthy: boolean; problem: string | null; appliedAgeSeconds: number | null };

export function judgeIndexer(record: IndexerPassRecord, staleAfterSeconds: number, at: Date): IndexerVerdict {
  const appliedAgeSeconds = record.lastAppliedSyncAt ? Math.max(0, (at.getTime() - record.lastAppliedSyncAt.getTime()) / 1000) : null;
  if (appliedAgeSeconds !== null && appliedAgeSeconds <= staleAfterSeconds) return { healthy: true, problem: null, appliedAgeSeconds };
  const since =
    appliedAgeSeconds === null
      ? "no ownership pass has been applied yet"
      : `no ownership pass applied for ${Math.round(appliedAgeSeconds)} s`;
  const heldBack =
    record.heldBackPassesInARow > 0 && record.syncState && record.syncState !== "ok"
      ? `; ${record.heldBackPassesInARow} held back in a row, the last ${record.syncState}: ${record.syncReason ?? "no reason given"}`
      : "";
  return { healthy: false, problem: `${since} (limit ${staleAfterSeconds} s)${heldBack}`, appliedAgeSeconds };
}
