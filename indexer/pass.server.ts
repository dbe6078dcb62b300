/**
 * One indexer pass: the ownership sync, then the draw pass (close what ended, draw what is confirmed). The
 * service runs it on INDEXER_SYNC_CRON and `spooks-admin indexer sync` runs it once, so an operator who
 * drives passes from the CLI gets draws too.
 */
import { withDrawChain } from "./draw-chain.server.ts";
import { runDrawPass, type DrawPassReport } from "./draws.server.ts";
import { syncOnce, type SyncOptions, type SyncReport } from "./sync.server.ts";

/** `draws` is null when the pass was cut short before its draw pass (shutdown). */
export type IndexerPassReport = { sync: SyncReport; draws: DrawPassReport | null };

export async function runIndexerPass(options: SyncOptions): Promise<IndexerPassReport> {
  const sync = await syncOnce(options);
  if (options.signal?.aborted) return { sync, draws: null };
  const { sql, logger, ordUrl, config } = options;
  const draws = await withDrawChain({ ...config, ordUrl }, (chain) => runDrawPass({ sql, chain, logger }));
  return { sync, draws };
}
