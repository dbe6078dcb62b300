/** The indexer's entry points for the CLI and the server. */
export { accrueHour, accruePending, type AccrualReport, type AccruePendingOptions } from "./accrual.server.ts";
export { createOrdClient, OrdError, type OrdClient, type OrdInscription } from "./ord-client.server.ts";
export { runIndexerPass, type IndexerPassReport } from "./pass.server.ts";
export { startIndexer, type IndexerService } from "./service.server.ts";
export { indexerStatus, type IndexerStatus } from "./status.server.ts";
export { syncOnce, type SyncOptions, type SyncProgress, type SyncReport } from "./sync.server.ts";
