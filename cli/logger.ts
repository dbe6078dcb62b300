/**
 * The CLI's log: the indexer's passes run from `spooks-admin` (indexer sync, points accrue) log through it.
 * Service "cli", on stderr, so stdout keeps only the result (`--json` stays pure JSON); at warn unless
 * LOG_LEVEL says otherwise, so an operator sees what went wrong, not every pass's summary.
 */
import type { Config } from "../app/utils/env.server.ts";
import { createLogger, type Logger } from "../app/utils/logger.server.ts";

export function createCliLogger(config: Pick<Config, "logLevel" | "logFormat" | "nodeEnv">): Logger {
  return createLogger("cli", config, 2);
}
