/**
 * `catalogue import FILE` (validate every row, then all or nothing) and `catalogue stats`.
 * Row rules are app/domain/catalogue.ts; the write is db/queries/catalogue.server.ts.
 */
import type { Command } from "commander";
import path from "node:path";
import { validateCatalogue } from "../../app/domain/catalogue.ts";
import { formatNumber } from "../../app/domain/format.ts";
import { catalogueStats, importCatalogue } from "../../db/queries/catalogue.server.ts";
import { readCatalogueFile } from "../catalogue-file.ts";
import { action, CLI_ACTOR, CliError, leaf, output, withDatabase, withProgress, type OutputOptions } from "../runtime.ts";
import { tableView } from "../views.tsx";

type Stats = Awaited<ReturnType<typeof catalogueStats>>;

export function registerCatalogue(program: Command): void {
  const group = program.command("catalogue").description("the rarity catalogue of both collections");
  leaf(
    group,
    "import <file>",
    "import a JSON array or a CSV (name,inscriptionId,collection,rank[,rarity]); every row is checked first, then all are imported or none",
  ).action(action(importFile));
  leaf(group, "stats", "items per collection and rarity, and how many have a known owner").action(action(stats));
}

async function importFile(file: string, options: OutputOptions) {
  const catalogue = readCatalogueFile(file);
  const { items, errors } = validateCatalogue(catalogue.rows);
  if (errors.length > 0) {
    const lines = errors.map((error) => `  row ${error.row}${catalogue.whereIs(error.row)}: ${error.message}`);
    const count = errors.length === 1 ? "1 bad row" : `${errors.length} bad rows`;
    throw new CliError(`${file} has ${count}; nothing was imported\n${lines.join("\n")}`);
  }
  const result = await withDatabase(async ({ sql }) => {
    const counts = await withProgress(options, "Importing", (report) => {
      report(0, items.length);
      return importCatalogue(sql, items, report, { actor: CLI_ACTOR, source: path.basename(file) });
    });
    return { file, rows: items.length, ...counts, collections: await catalogueStats(sql) };
  });
  await output(options, result, async () => {
    const { Box, Text } = await import("ink");
    const { StatusLine } = await import("../components/index.ts");
    return (
      <Box flexDirection="column">
        <StatusLine status="success">
          Imported {formatNumber(result.rows)} items from {path.basename(file)} ({formatNumber(result.inserted)} new,{" "}
          {formatNumber(result.updated)} updated)
        </StatusLine>
        <Text> </Text>
        {await statsView(result.collections)}
      </Box>
    );
  });
}

async function stats(options: OutputOptions) {
  const collections = await withDatabase(({ sql }) => catalogueStats(sql));
  await output(options, { collections }, () => statsView(collections));
}

function statsView(collections: Stats) {
  const count = (pick: (row: Stats[number]) => number) => (row: Stats[number]) => formatNumber(pick(row));
  return tableView({
    rows: collections,
    empty: "The catalogue is empty: import one with `spooks-admin catalogue import FILE`",
    columns: [
      { header: "Collection", value: (row) => row.collection },
      { header: "Items", value: count((row) => row.items), align: "right" },
      { header: "Legendary", value: count((row) => row.legendary), align: "right" },
      { header: "Epic", value: count((row) => row.epic), align: "right" },
      { header: "Rare", value: count((row) => row.rare), align: "right" },
      { header: "Common", value: count((row) => row.common), align: "right" },
      { header: "Owned", value: count((row) => row.owned), align: "right" },
    ],
  });
}
