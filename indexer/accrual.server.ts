/**
 * Accrual passes (DECISIONS "Points"): credit every ended hour not yet credited, oldest first, one
 * transaction and one set-based statement per hour, so a crash between hours leaves the earlier ones
 * credited and the next pass picks up the rest.
 *
 * Which hours: the last `maxHours` ended hours (the catch-up limit), never before the first whole hour
 * at or after the earliest stake start (when nothing was ever credited, catch-up starts there), minus
 * the hours already in accrual_runs. Older uncredited hours are left alone and reported as
 * `beyondLimit`; `accrueHour` credits one explicitly.
 */
import { HOUR_MS, hourStart, now } from "../app/domain/clock.ts";
import { badRequest, conflict } from "../app/domain/errors.ts";
import { silentLogger, type Logger } from "../app/utils/logger.server.ts";
import { observeAccrualPass } from "../app/utils/metrics.server.ts";
import type { Sql } from "../db/client.server.ts";
import {
  countUncreditedHours,
  creditHour,
  earliestStakeStart,
  uncreditedHours,
  type AccrualSource,
  type HourCredit,
} from "../db/queries/accrual.server.ts";
import { switchBasisAhead } from "../db/queries/accrual-basis.server.ts";
import { runExclusive } from "./pass-lock.server.ts";

export type AccrualReport =
  | {
      skipped: false;
      source: AccrualSource;
      hours: HourCredit[];
      wallets: number;
      units: number;
      /** Uncredited ended hours older than the catch-up limit (left alone). */
      beyondLimit: number;
      durationMs: number;
    }
  | { skipped: true; source: AccrualSource };

export type AccruePendingOptions = {
  sql: Sql;
  /** The instant taken as now (default: the clock). Only hours ended by then are credited. */
  at?: Date;
  maxHours: number;
  source: AccrualSource;
  logger?: Logger;
  /** Wait for a pass running elsewhere instead of skipping; default: only the CLI waits. */
  wait?: boolean;
  /**
   * The process is stopping: no further hour is begun (the one under way commits or rolls back whole), and the
   * basis is not switched ahead. What is left is credited by the next pass, as after a crash between hours.
   */
  signal?: AbortSignal;
};

const actorFor = (source: AccrualSource) => (source === "cli" ? "cli" : "system");

/** The first hour start at or after `at`. */
function hourAtOrAfter(at: Date): Date {
  const start = hourStart(at);
  return start.getTime() === at.getTime() ? start : new Date(start.getTime() + HOUR_MS);
}

export async function accruePending(options: AccruePendingOptions): Promise<AccrualReport> {
  const { sql, source } = options;
  const logger = options.logger ?? silentLogger;
  const outcome = await runExclusive(sql, "accrual", options.wait ?? source === "cli", () => accrualPass(options, logger));
  if (outcome.ran) return outcome.value;
  logger.info({ msg: "accrual skipped: another pass holds the lock", source });
  return { skipped: true, source };
}

async function accrualPass(options: AccruePendingOptions, logger: Logger): Promise<AccrualReport> {
  const { sql, source, maxHours } = options;
  const at = options.at ?? now();
  const started = performance.now();
  const lastEnded = new Date(hourStart(at).getTime() - HOUR_MS);
  const windowStart = new Date(lastEnded.getTime() - (Math.max(1, maxHours) - 1) * HOUR_MS);
  const earliest = await earliestStakeStart(sql);

  const hours: HourCredit[] = [];
  let beyondLimit = 0;
  if (earliest) {
    const firstStaked = hourAtOrAfter(earliest);
    const from = firstStaked > windowStart ? firstStaked : windowStart;
    for (const hour of await uncreditedHours(sql, from, lastEnded)) {
      if (options.signal?.aborted) break;
      const credit = await creditHour(sql, { hour, at, actor: actorFor(source), source });
      hours.push({ hour: credit.hour, wallets: credit.wallets, units: credit.units });
    }
    beyondLimit = await countUncreditedHours(sql, firstStaked, new Date(from.getTime() - HOUR_MS));
  }
  // A schedule that starts with the next hour: the basis switched to it now, so that hour costs what any other
  // does. The hours above are credited whatever happens here; unswitched, that hour aggregates every stake.
  const switchedBasis = options.signal?.aborted
    ? false
    : await switchBasisAhead(sql).catch((error: unknown) => {
        logger.warn({
          msg: "the basis could not be switched to the next hour's schedule: its first hour will aggregate every stake",
          err: error,
        });
        return false;
      });

  const report: AccrualReport = {
    skipped: false,
    source,
    hours,
    wallets: hours.reduce((sum, h) => sum + h.wallets, 0),
    units: hours.reduce((sum, h) => sum + h.units, 0),
    beyondLimit,
    durationMs: Math.round(performance.now() - started),
  };
  observeAccrualPass(report.durationMs / 1000, hours.length);
  logger.info({
    msg: "accrual",
    source,
    hours: hours.length,
    firstHour: hours[0]?.hour.toISOString() ?? null,
    lastHour: hours.at(-1)?.hour.toISOString() ?? null,
    wallets: report.wallets,
    units: report.units,
    beyondLimit,
    switchedBasis,
    durationMs: report.durationMs,
  });
  if (beyondLimit > 0) {
    logger.warn({ msg: "uncredited hours older than the catch-up limit were left alone", beyondLimit, maxHours });
  }
  return report;
}

/**
 * Credits the hour containing `hour` (CLI `points accrue --hour`). Refuses (409) an hour that has not
 * ended by `at`. Crediting an hour twice credits nothing the second time.
 */
export async function accrueHour(options: {
  sql: Sql;
  hour: Date;
  at?: Date;
  source: AccrualSource;
  logger?: Logger;
}): Promise<HourCredit & { alreadyCredited: boolean }> {
  const { sql, source } = options;
  const at = options.at ?? now();
  const hour = hourStart(options.hour);
  if (Number.isNaN(hour.getTime())) throw badRequest("Not a valid hour");
  const ends = new Date(hour.getTime() + HOUR_MS);
  if (ends > at) {
    throw conflict(`The hour ${hour.toISOString()} has not ended yet (it ends at ${ends.toISOString()}); only ended hours are credited`);
  }
  const started = performance.now();
  const outcome = await runExclusive(sql, "accrual", true, () => creditHour(sql, { hour, at, actor: actorFor(source), source }));
  if (!outcome.ran) throw new Error("unreachable: a waiting pass always runs");
  const credit = outcome.value;
  (options.logger ?? silentLogger).info({
    msg: "accrual",
    source,
    hours: 1,
    firstHour: hour.toISOString(),
    lastHour: hour.toISOString(),
    wallets: credit.wallets,
    units: credit.units,
    alreadyCredited: credit.alreadyCredited,
    durationMs: Math.round(performance.now() - started),
  });
  return credit;
}
