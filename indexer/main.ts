/**
 * `npm run start:indexer`: the indexer alone (production, next to `npm run start:web`). Needs ORD_URL:
 * in demo mode the simulated chain lives inside `npm start`'s process, so there is nothing to index here.
 */
import { redactUrlsIn } from "../app/domain/redact.ts";
import { loadConfig } from "../app/utils/env.server.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { appVersion } from "../app/utils/project-root.server.ts";
import { openDatabase } from "../db/client.server.ts";
import { migrateAsOwner } from "../db/migrate.server.ts";
import { appRoleWarning } from "../db/roles.server.ts";
import { startOpsServer, type OpsServer } from "../server/ops-server.ts";
import { startIndexer } from "./service.server.ts";
import { startPublicLog } from "../app/utils/log-service.server.ts";

const SHUTDOWN_GRACE_MS = 15_000;

async function main() {
  const config = loadConfig();
  if (!config.ordUrl) {
    throw new Error(
      "ORD_URL is not set. The standalone indexer reads a wonky-ord server at ORD_URL; in demo mode the simulated " +
        "chain and its indexer run inside `npm start`, so run that instead (or set ORD_URL).",
    );
  }
  const logger = createLogger("indexer", config);
  const db = await openDatabase({ ...config, warn: (line) => logger.warn(line) });
  try {
    const applied = await migrateAsOwner(db, config.migrateDatabaseUrl);
    if (applied.length) logger.info({ msg: "migrations applied", applied });
    const roleWarning = await appRoleWarning(db, config.migrateDatabaseUrl !== undefined);
    if (roleWarning) logger.warn({ msg: roleWarning });
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  // Metrics and the indexer's /health (its container health check) on the private operations port, when set.
  let ops: OpsServer | undefined;
  const { metricsPort, metricsHost, indexerStaleAfterSeconds } = config.ops;
  try {
    if (metricsPort !== undefined) {
      const options = { port: metricsPort, host: metricsHost, role: "indexer" as const, version: appVersion(), indexerStaleAfterSeconds };
      ops = await startOpsServer({ ...options, sql: db.sql, logger });
    }
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  const publicLog = await startPublicLog(db, config, logger);
  const indexer = await startIndexer({ sql: db.sql, config: { ...config, ordUrl: config.ordUrl }, logger });
  logger.info({ msg: "database", database: db.description });

  const shutdown = async (signal: string) => {
    logger.info({ msg: "shutting down", signal });
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    await indexer.stop().catch((error: Error) => logger.error({ msg: "indexer stop failed", err: error }));
    await publicLog.stop();
    await ops?.close();
    await db.close().catch((error: Error) => logger.error({ msg: "database close failed", err: error }));
    clearTimeout(force);
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: Error) => {
  console.error(`spooks indexer: ${redactUrlsIn(error.message ?? String(error))}`);
  process.exit(1);
});
