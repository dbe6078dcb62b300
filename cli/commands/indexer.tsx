/**
 * `indexer status` (what the indexer last did) and `indexer sync` (one pass now, as the indexer service runs
 * it: the ownership sync, waiting for a pass running in the server rather than racing it, then the draw
 * pass). The work is indexer/pass.server.ts.
 */
import type { Command } from "commander";
import { formatNumber } from "../../app/domain/format.ts";
import { redactUrl } from "../../app/domain/redact.ts";
import { unitsToPoints } from "../../app/domain/rewards.ts";
import type { Config } from "../../app/utils/env.server.ts";
import { recordAudit } from "../../db/queries/audit.server.ts";
import type { SyncRun } from "../../db/queries/ownership.server.ts";
import { indexerStatus, type IndexerStatus } from "../../indexer/status.server.ts";
import type { DrawPassReport } from "../../indexer/draws.server.ts";
import { runIndexerPass } from "../../indexer/pass.server.ts";
import { dateTime, points } from "../format.ts";
import { createCliLogger } from "../logger.ts";
import { action, CLI_ACTOR, CliError, leaf, output, withDatabase, withProgress, type OutputOptions } from "../runtime.ts";
import { detailsView } from "../views.tsx";

export function registerIndexer(program: Command): void {
  const group = program.command("indexer").description("the ownership indexer and the hourly accrual");
  leaf(group, "status", "the last ownership sync and the last credited hour").action(action(status));
  leaf(group, "sync", "run one indexer pass now against ORD_URL: the ownership sync, then due giveaway closes and draws").action(
    action(sync),
  );
}

async function status(options: OutputOptions) {
  const result = await withDatabase(async ({ sql, config }) => ({
    ordUrl: config.ordUrl ? redactUrl(config.ordUrl) : null,
    demo: config.demo,
    ...(await indexerStatus(sql)),
  }));
  await output(options, result, () => statusView(result));
}

async function statusView(status: IndexerStatus & { ordUrl: string | null }) {
  const { Details } = await import("../components/index.ts");
  const sync = status.lastSync;
  const accrual = status.lastAccrual;
  return (
    <Details
      rows={[
        ["Ord server", status.ordUrl ?? "none (demo mode: the simulated chain runs inside `npm start`)"],
        ["Last sync", sync ? `${dateTime(sync.finishedAt)} (${sync.source})` : "never"],
        ...(sync
          ? ([
              ["Sync state", syncStateText(sync, status.heldBack)],
              ["Block height", sync.blockHeight === null ? "unknown (ord server unreachable)" : formatNumber(sync.blockHeight)],
              ["Highest block count seen", status.highestBlockCount === null ? "none yet" : formatNumber(status.highestBlockCount)],
              ["Items checked", formatNumber(sync.itemsChecked)],
              ["Owners changed", formatNumber(sync.ownersChanged)],
              ["Stakes ended", formatNumber(sync.stakesEnded)],
              ["Errors", formatNumber(sync.errors)],
            ] as const)
          : []),
        ["Last credited hour", status.lastCreditedHour ? dateTime(status.lastCreditedHour) : "none"],
        [
          "Last accrual",
          accrual
            ? `${dateTime(accrual.finishedAt)} (${accrual.source}): ${formatNumber(accrual.wallets)} wallets, ${points(unitsToPoints(accrual.units))} points`
            : "never",
        ],
      ]}
    />
  );
}

/** `ok`, or the held-back state with its reason and how many passes in a row were held back. */
function syncStateText(sync: SyncRun, heldBack: IndexerStatus["heldBack"]): string {
  if (sync.state === "ok") return "ok";
  const passes = `${formatNumber(heldBack.inARow)} pass${heldBack.inARow === 1 ? "" : "es"} in a row, ${formatNumber(heldBack.total)} in all`;
  return `${sync.state}: ${sync.reason} (nothing changed; ${passes})`;
}

function requireOrdUrl(config: Config): string {
  if (config.ordUrl) return config.ordUrl;
  throw new CliError(
    "ORD_URL is not set: in demo mode the simulated chain lives inside `npm start`, so there is nothing to sync from here (set ORD_URL to an ord server)",
  );
}

async function sync(options: OutputOptions) {
  const run = await withDatabase(async ({ sql, config }) => {
    const ordUrl = requireOrdUrl(config);
    const { sync: report, draws } = await withProgress(options, "Checking owners", (progress) =>
      runIndexerPass({
        sql,
        ordUrl,
        config,
        source: "cli",
        wait: true,
        logger: createCliLogger(config),
        onProgress: ({ done, total }) => progress(done, total),
      }),
    );
    if (report.skipped) throw new CliError("another sync pass is running; try again in a moment");
    const { skipped: _, ...summary } = report;
    await recordAudit(sql, CLI_ACTOR, "indexer.sync", ordUrl, summary);
    if (summary.state === "unavailable" && summary.blockHeight === null) {
      throw new CliError(`the ord server at ${redactUrl(ordUrl)} did not answer; nothing was changed`);
    }
    if (summary.state !== "ok") {
      throw new CliError(`the pass was held back (${summary.state}): ${summary.reason}; nothing was changed`);
    }
    return { ...summary, draws: draws ?? { closed: [], deferred: [], drawn: [], waiting: [] } };
  });
  const unread = run.errors > 0 ? `, ${formatNumber(run.errors)} could not be read (left as they were)` : "";
  await output(options, run, () =>
    detailsView(
      `Sync done at block ${formatNumber(run.blockHeight ?? 0)}: ${formatNumber(run.itemsChecked)} items checked${unread}`,
      [
        ["Owners changed", formatNumber(run.ownersChanged)],
        ["First seen", formatNumber(run.firstSeen)],
        ["Stakes ended", formatNumber(run.stakesEnded)],
        ...(run.returns > 0
          ? [["Back after a reorg", `${formatNumber(run.returns)} (stakes reopened: ${formatNumber(run.stakesReopened)})`] as const]
          : []),
        ...(run.inDoubt > 0 ? [["In doubt (next pass)", formatNumber(run.inDoubt)] as const] : []),
        ...drawRows(run.draws),
        ["Took", `${formatNumber(run.durationMs)} ms`],
      ],
      run.errors > 0 ? "warning" : "success",
    ),
  );
}

/** The draw pass's work, when it did any: the giveaways it closed, deferred, or drew. */
function drawRows(draws: DrawPassReport): (readonly [string, string])[] {
  const ids = (list: number[]) => list.map((id) => `#${id}`).join(", ");
  return [
    ...(draws.closed.length > 0 ? [["Giveaways closed", ids(draws.closed)] as const] : []),
    ...(draws.deferred.length > 0 ? [["Closes deferred", `${ids(draws.deferred)} (the ord server is not healthy)`] as const] : []),
    ...(draws.drawn.length > 0 ? [["Giveaways drawn", ids(draws.drawn)] as const] : []),
  ];
}
