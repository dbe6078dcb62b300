/**
 * Reads a catalogue file into raw rows for app/domain/catalogue.ts to validate: a JSON array of objects,
 * or CSV with the header `name,inscriptionId,collection,rank[,rarity]` (any order, any case).
 */
import { parse as parseCsv } from "csv-parse/sync";
import fs from "node:fs";
import path from "node:path";
import { CliError } from "./runtime.ts";

export const CATALOGUE_COLUMNS = ["name", "inscriptionId", "collection", "rank", "rarity"] as const;
const REQUIRED_COLUMNS = CATALOGUE_COLUMNS.slice(0, 4);

export type CatalogueFile = {
  format: "json" | "csv";
  rows: unknown[];
  /** Where a row (1-based) is in the file, for messages ('line 4'); empty for JSON. */
  whereIs: (row: number) => string;
};

function isJson(file: string, text: string): boolean {
  const extension = path.extname(file).toLowerCase();
  if (extension === ".json") return true;
  if (extension === ".csv") return false;
  return text.trimStart().startsWith("[");
}

export function readCatalogueFile(file: string): CatalogueFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const catalogue = isJson(file, text) ? readJson(file, text) : readCsv(file, text);
  if (catalogue.rows.length === 0) throw new CliError(`${file} has no rows; nothing was imported`);
  return catalogue;
}

function readJson(file: string, text: string): CatalogueFile {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(rows)) throw new CliError(`${file} must hold a JSON array of rows`);
  return { format: "json", rows, whereIs: () => "" };
}

function canonicalHeader(file: string, header: string[]): string[] {
  const columns = header.map((name) => {
    const known = CATALOGUE_COLUMNS.find((column) => column.toLowerCase() === name.trim().toLowerCase());
    if (!known) throw new CliError(`${file}: unknown column '${name}' (expected ${CATALOGUE_COLUMNS.join(",")}, rarity optional)`);
    return known;
  });
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.includes(column));
  if (missing.length > 0)
    throw new CliError(`${file}: the CSV header lacks ${missing.join(", ")} (expected name,inscriptionId,collection,rank[,rarity])`);
  return columns;
}

function readCsv(file: string, text: string): CatalogueFile {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      columns: (header: string[]) => canonicalHeader(file, header),
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file} is not valid CSV: ${(error as Error).message}`);
  }
  return {
    format: "csv",
    rows: records.map((entry) => entry.record),
    whereIs: (row) => ` (line ${records[row - 1]?.info.lines ?? "?"})`,
  };
}
