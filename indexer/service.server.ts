/**
 * The indexer as a background service: one sync pass and an accrual catch-up at start, then both on
 * node-cron schedules (INDEXER_SYNC_CRON, default every minute; INDEXER_ACCRUAL_CRON, minute 0, in UTC).
 * Housekeeping (db/queries/housekeeping.server.ts) runs at start and every hour at minute 30: the indexer
 * is the one process every deployment runs once, so replicas of the web server never race for it.
 * Each scheduled pass is indexer/pass.server.ts (the one `spooks-admin indexer sync` runs): a sync pass,
 * then a draw pass that closes the version-2 giveaways whose end date passed and draws those whose block has
 * six on top (indexer/draws.server.ts).
 * The start-up passes run in the background so a web server beside it listens at once (`ready` settles
 * when they are done). stop() ends the schedules, cuts an in-flight sync or catch-up short and waits for it.
 */
import cron, { type Logger as CronLogger, type ScheduledTask } from "node-cron";
import type { Config } from "../app/utils/env.server.ts";
import type { Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import type { SyncSource } from "../db/queries/ownership.server.ts";
import { now } from "../app/domain/clock.ts";
import { pruneExpired } from "../db/queries/housekeeping.server.ts";
import { accruePending } from "./accrual.server.ts";
import { runIndexerPass } from "./pass.server.ts";
import type { NotificationChannel } from "./notifications/channel.server.ts";
import { notificationChannels } from "./notifications/channels.server.ts";
import { startNotificationWorker } from "./notifications/worker.server.ts";
import { startRoleSync } from "./discord-sync.server.ts";

/** Half past each hour, away from the accrual at minute 0. */
export const HOUSEKEEPING_CRON = "30 * * * *";

export type IndexerService = { ready: Promise<void>; stop(): Promise<void> };

export type IndexerOptions = {
  sql: Sql;
  config: Pick<Config, "indexer"> &
    Partial<Pick<Config, "discord">> &
    Partial<Pick<Config, "notifications" | "publicUrl">> & { ordUrl: string };
  logger: Logger;
  /** The notification worker's channels; by default those the settings configure (notificationChannels). */
  channels?: readonly NotificationChannel[];
};

/** node-cron's own messages in our log: its routine ones at debug, a failed task with its error's stack. */
function cronLogger(logger: Logger): CronLogger {
  const entry = (message: string | Error, err?: Error) =>
    message instanceof Error ? { msg: `cron: ${message.message}`, err: message } : { msg: `cron: ${message}`, ...(err && { err }) };
  return {
    info: (message) => logger.debug(entry(message)),
    warn: (message) => logger.warn(entry(message)),
    error: (message, err) => logger.error(entry(message, err)),
    debug: (message, err) => logger.debug(entry(message, err)),
  };
}

function checkCron(name: string, expression: string) {
  if (!cron.validate(expression)) throw new Error(`${name} is not a valid cron expression: ${expression}`);
}

export async function startIndexer({ sql, config, logger, channels }: IndexerOptions): Promise<IndexerService> {
  const { syncCron, accrualCron, catchUpHours } = config.indexer;
  checkCron("INDEXER_SYNC_CRON", syncCron);
  checkCron("INDEXER_ACCRUAL_CRON", accrualCron);
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();

  const track = (pass: Promise<unknown>, what: string): Promise<void> => {
    const settled = pass.then(
      () => {},
      (error: Error) => logger.error({ msg: `${what} failed`, err: error }),
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
    return settled;
  };
  const sync = (source: SyncSource) =>
    track(runIndexerPass({ sql, ordUrl: config.ordUrl, config, logger, source, wait: false, signal: shutdown.signal }), "sync");
  const accrue = (source: SyncSource) =>
    track(accruePending({ sql, maxHours: catchUpHours, source, logger, wait: false, signal: shutdown.signal }), "accrual");

  const housekeep = () =>
    track(
      pruneExpired(sql, now()).then((pruned) => {
        if (pruned.challenges + pruned.sessions + pruned.usedSignatures + pruned.syncRuns > 0)
          logger.info({ msg: "housekeeping", ...pruned });
      }),
      "housekeeping",
    );

  const ready = Promise.all([sync("startup"), accrue("startup"), housekeep()]).then(() => {});
  const options = { timezone: "Etc/UTC", noOverlap: true, logger: cronLogger(logger) };
  const tasks: ScheduledTask[] = [
    cron.schedule(syncCron, () => sync("scheduled"), { ...options, name: "spooks-sync" }),
    cron.schedule(accrualCron, () => accrue("scheduled"), { ...options, name: "spooks-accrual" }),
    cron.schedule(HOUSEKEEPING_CRON, housekeep, { ...options, name: "spooks-housekeeping" }),
  ];
  // Discord holder roles, when configured: the role sync ticks and sweeps in this process (docs/discord.md).
  const roleSync = config.discord ? startRoleSync({ sql, config: config.discord, logger }) : undefined;
  // The notification worker (issue 24): a pass at once, then NOTIFY_INTERVAL_S after each.
  const notifyIntervalS = config.notifications?.intervalS ?? 10;
  const notifier = startNotificationWorker({
    sql,
    channels: channels ?? notificationChannels(config, { logger, sql }),
    logger,
    intervalMs: notifyIntervalS * 1000,
  });
  logger.info({ msg: "indexer started", ord: new URL(config.ordUrl).origin, syncCron, accrualCron, catchUpHours, notifyIntervalS });

  let stopping: Promise<void> | undefined;
  return {
    ready,
    stop: () =>
      (stopping ??= (async () => {
        for (const task of tasks) await task.destroy();
        shutdown.abort();
        await notifier.stop();
        await roleSync?.stop();
        await Promise.all([...inFlight]);
        logger.info({ msg: "indexer stopped" });
      })()),
  };
}
