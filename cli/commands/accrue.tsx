/**
 * `points accrue [--hour ISO]`: credits ended hours now (the indexer does it every hour by itself).
 * Without --hour, every uncredited ended hour within ACCRUAL_CATCHUP_HOURS; with it, that one hour.
 * "Now" is the process clock (app/domain/clock.ts), so running under faketime moves it. Each hour credited is
 * in the audit trail (`accrual.hour`, actor cli), written with its ledger rows.
 */
import type { Command } from "commander";
import { now } from "../../app/domain/clock.ts";
import { countOf } from "../../app/domain/format.ts";
import { unitsToPoints } from "../../app/domain/rewards.ts";
import type { HourCredit } from "../../db/queries/accrual.server.ts";
import { accrueHour, accruePending } from "../../indexer/accrual.server.ts";
import { dateTime, points } from "../format.ts";
import { createCliLogger } from "../logger.ts";
import { action, CliError, leaf, output, withDatabase, type OutputOptions } from "../runtime.ts";
import { statusView } from "../views.tsx";

type AccrueOptions = OutputOptions & { hour?: string };

export function registerAccrue(group: Command): void {
  leaf(group, "accrue", "credit staking points for ended hours not yet credited (the clock decides what has ended)")
    .option("--hour <iso>", "credit only the hour containing this time (e.g. 2030-10-31T18:00:00Z)")
    .action(action(accrue));
}

function parseHour(text: string): Date {
  const hour = new Date(text);
  if (!/\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(hour.getTime())) {
    throw new CliError(`--hour must be an ISO 8601 time such as 2030-10-31T18:00:00Z (got '${text}')`);
  }
  return hour;
}

async function accrue(options: AccrueOptions) {
  if (options.hour !== undefined) return accrueOneHour(parseHour(options.hour), options);
  const report = await withDatabase(async ({ sql, config }) => {
    const result = await accruePending({
      sql,
      at: now(),
      maxHours: config.indexer.catchUpHours,
      source: "cli",
      logger: createCliLogger(config),
    });
    if (result.skipped) throw new CliError("another accrual pass is running; try again in a moment");
    const summary = {
      hours: result.hours.length,
      wallets: result.wallets,
      points: unitsToPoints(result.units),
      beyondLimit: result.beyondLimit,
    };
    return { ...summary, catchUpHours: config.indexer.catchUpHours, credited: result.hours.map(creditJson) };
  });
  await output(options, report, async () => {
    const { Box } = await import("ink");
    const { StatusLine } = await import("../components/index.ts");
    const first = report.credited[0];
    const last = report.credited.at(-1);
    return (
      <Box flexDirection="column">
        {first && last ? (
          <StatusLine status="success">
            Accrued {countOf(report.hours, "hour")}, {dateTime(first.hour)} to {dateTime(last.hour)}: {points(report.points)} points in{" "}
            {countOf(report.wallets, "wallet credit")}
          </StatusLine>
        ) : (
          <StatusLine status="info">Nothing to accrue: every ended hour is credited</StatusLine>
        )}
        {report.beyondLimit > 0 && (
          <StatusLine status="warning">
            {countOf(report.beyondLimit, "older uncredited hour")} {report.beyondLimit === 1 ? "lies" : "lie"} beyond the catch-up limit of{" "}
            {report.catchUpHours} hours; credit them one by one with --hour
          </StatusLine>
        )}
      </Box>
    );
  });
}

function creditJson(credit: HourCredit) {
  return { hour: credit.hour, wallets: credit.wallets, points: unitsToPoints(credit.units) };
}

async function accrueOneHour(hour: Date, options: OutputOptions) {
  const credit = await withDatabase(async ({ sql, config }) => {
    const result = await accrueHour({ sql, hour, at: now(), source: "cli", logger: createCliLogger(config) });
    const summary = { ...creditJson(result), alreadyCredited: result.alreadyCredited };
    return summary;
  });
  await output(options, credit, () =>
    credit.alreadyCredited && credit.wallets === 0
      ? statusView(`Hour ${dateTime(credit.hour)} was already credited: nothing added`, "info")
      : statusView(`Credited hour ${dateTime(credit.hour)}: ${points(credit.points)} points to ${countOf(credit.wallets, "wallet")}`),
  );
}
