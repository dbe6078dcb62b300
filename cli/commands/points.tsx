/**
 * `points add|clear|recalculate|reset-negative|accrue|history`: the admin's points tools. Every change
 * goes through db/queries/points.server.ts (ledger row + audit row with actor `cli`).
 */
import type { Command } from "commander";
import { z } from "zod";
import { negativeBalancesResetSchema, pointsAddedSchema, pointsClearedSchema, pointsRecalculatedSchema } from "../../app/api/admin.ts";
import { pointsHistoryQuery, pointsHistorySchema } from "../../app/api/points.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { unitsToPoints } from "../../app/domain/rewards.ts";
import { addPointsSchema, addressSchema, clearReasonSchema, DEFAULT_ADJUSTMENT_DESCRIPTION } from "../../app/domain/validation.ts";
import { addPoints, clearPoints, getBalanceUnits, recalculateAllPoints, resetNegativeBalances } from "../../db/queries/points.server.ts";
import { pointsHistoryPage, type HistoryPage } from "../../db/queries/points-history.server.ts";
import { dateTime, points } from "../format.ts";
import {
  action,
  CLI_ACTOR,
  destructiveLeaf,
  leaf,
  outputAnswer,
  parseInput,
  withConfirmedChange,
  withDatabase,
  withProgress,
  type DestructiveOptions,
  type OutputOptions,
} from "../runtime.ts";
import { statusView, tableView } from "../views.tsx";
import { registerAccrue } from "./accrue.tsx";

// What the API answers for the same change (without its `success`), and what the CLI adds to it.
const addedSchema = pointsAddedSchema.omit({ success: true }).extend({ added: z.number(), description: z.string() });
const clearedSchema = pointsClearedSchema.omit({ success: true });
const recalculatedSchema = pointsRecalculatedSchema.omit({ success: true }).extend({
  corrected: z.number().int().min(0).meta({ description: "Cached balances that differed from the ledger." }),
});
const resetSchema = negativeBalancesResetSchema.omit({ success: true });

export function registerPoints(program: Command): void {
  const group = program.command("points").description("add, clear, rebuild and inspect Spook Points");
  leaf(group, "add <address> <amount>", "add points to a wallet (amount > 0, at most 2 decimals)")
    .option("--description <text>", `ledger description (default: "${DEFAULT_ADJUSTMENT_DESCRIPTION}")`)
    .action(action(add));
  destructiveLeaf(group, "clear <address>", "bring a wallet's balance to 0 (one ledger row)")
    .option("--reason <text>", "why: the ledger row's description and the audit row's reason (optional)")
    .action(action(clear));
  leaf(group, "recalculate", "rebuild every cached balance from the ledger").action(action(recalculate));
  destructiveLeaf(group, "reset-negative", "add an adjustment bringing each negative balance to 0").action(action(resetNegative));
  registerAccrue(group);
  leaf(group, "history <address>", "a wallet's points history, newest first, each entry explained (as the API's)")
    .option("--limit <n>", "entries per page (default 50, at most 500)")
    .option("--cursor <id>", "the older entries, from the cursor a page printed")
    .action(action(history));
}

async function add(address: string, amount: string, options: OutputOptions & { description?: string }) {
  const input = parseInput(addPointsSchema, { address, amount, description: options.description }, { description: "--description" });
  const result = await withDatabase(({ sql }) =>
    addPoints(sql, { address: input.address, points: input.amount, description: input.description, actor: CLI_ACTOR }),
  );
  const data = { ...result, added: input.amount, description: input.description };
  await outputAnswer(options, addedSchema, data, () =>
    statusView(`Points added: ${points(input.amount)} to ${result.address} (balance ${points(result.totalPoints)})`),
  );
}

async function clear(address: string, options: DestructiveOptions & { reason?: string }) {
  const wallet = parseInput(addressSchema, address);
  const reason = parseInput(clearReasonSchema, options.reason);
  const result = await withConfirmedChange(
    options,
    async ({ sql }) => {
      const balance = unitsToPoints(await getBalanceUnits(sql, wallet));
      return `Clear all ${points(balance)} points of ${wallet}?`;
    },
    ({ sql }) => clearPoints(sql, { address: wallet, reason, actor: CLI_ACTOR }),
  );
  await outputAnswer(options, clearedSchema, result, () =>
    statusView(`Points cleared: ${result.address} had ${points(result.clearedPoints)}, now 0`),
  );
}

async function recalculate(options: OutputOptions) {
  const result = await withDatabase(({ sql }) =>
    withProgress(options, "Recalculating balances", (report) => recalculateAllPoints(sql, CLI_ACTOR, report)),
  );
  await outputAnswer(options, recalculatedSchema, result, () =>
    statusView(
      `Points Recalculated: ${formatNumber(result.addressesProcessed)} addresses processed, ${formatNumber(result.corrected)} corrected`,
    ),
  );
}

async function resetNegative(options: DestructiveOptions) {
  const result = await withConfirmedChange(
    options,
    () => "Reset every negative balance to 0?",
    ({ sql }) => resetNegativeBalances(sql, CLI_ACTOR),
  );
  await outputAnswer(options, resetSchema, result, () =>
    statusView(`Negative Balances Reset: ${formatNumber(result.adjustmentsApplied)} adjusted`),
  );
}

const historyInput = z.object({ address: addressSchema }).extend(pointsHistoryQuery.pick({ limit: true, cursor: true }).shape);

/** The same page, entries and explanations as GET /api/points/{address}/history, with the address. */
const historySchema = pointsHistorySchema.extend({ address: z.string() });

async function history(address: string, options: OutputOptions & { limit?: string; cursor?: string }) {
  const input = parseInput(
    historyInput,
    { address, limit: options.limit, cursor: options.cursor },
    { limit: "--limit", cursor: "--cursor" },
  );
  const page = await withDatabase(({ sql }) =>
    pointsHistoryPage(sql, { address: input.address, before: input.cursor ?? null }, input.limit),
  );
  await outputAnswer(options, historySchema, { address: input.address, ...page }, () => historyView(page));
}

/** The page's table, and where the older entries are when there are more (both views are async: await each). */
async function historyView({ entries, nextCursor }: HistoryPage) {
  const table = await tableView({
    rows: entries,
    empty: "No points history for this address",
    columns: [
      { header: "Date", value: (entry) => dateTime(entry.at) },
      { header: "Kind", value: (entry) => entry.kind },
      { header: "Points", value: (entry) => (entry.delta > 0 ? "+" : "") + points(entry.delta), align: "right" },
      { header: "Balance", value: (entry) => points(entry.balanceAfter), align: "right" },
      { header: "Details", value: (entry) => entry.details.summary },
    ],
  });
  if (!nextCursor) return table;
  return (
    <>
      {table}
      {await statusView(`Older entries: --cursor ${nextCursor}`)}
    </>
  );
}
