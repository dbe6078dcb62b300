/**
 * What every command shares: the database session (open, migrate, close), input parsing with the
 * domain's zod schemas, output (Ink on a terminal or a pipe, JSON with --json), confirmation of
 * destructive changes, progress of long work, and errors → stderr + exit code 1. Services throw
 * `Refusal` (app/domain/errors.ts) for bad input or a broken rule; its message is printed as is.
 *
 * Ink is imported lazily, only when something is drawn: `--json` runs and `--help` never load it.
 */
import type { Command } from "commander";
import type { ReactElement } from "react";
import { ZodError, type z } from "zod";
import { redactUrlsIn } from "../app/domain/redact.ts";
import { linesWithoutControlCharacters, withoutControlCharacters } from "../app/domain/terminal-text.ts";
import { firstIssue } from "../app/domain/validation.ts";
import { loadConfig, type Config } from "../app/utils/env.server.ts";
import { openDatabase, type Sql } from "../db/client.server.ts";
import { migrateAsOwner } from "../db/migrate.server.ts";
import type { Actor } from "../db/queries/audit.server.ts";
import { createCliLogger } from "./logger.ts";

/** Every change made from the CLI is recorded under this actor in the audit trail. */
export const CLI_ACTOR: Actor = { kind: "cli" };

/** A refused or failed action, said in words for the operator (exit code 1). */
export class CliError extends Error {}

export type OutputOptions = { json?: boolean };
export type DestructiveOptions = OutputOptions & { yes?: boolean };
/** `ownerUrl`: the schema owner's connection (MIGRATE_DATABASE_URL, or the embedded database's), for what only it may do. */
export type Session = { sql: Sql; config: Config; ownerUrl?: string };

// Commands ---------------------------------------------------------------------------------------

/** A subcommand that prints a result: every one takes --json. */
export function leaf(parent: Command, nameAndArgs: string, description: string): Command {
  return parent.command(nameAndArgs).description(description).option("--json", "print the result as JSON on stdout");
}

/** A subcommand that changes or removes data for good: asks first, unless --yes. */
export function destructiveLeaf(parent: Command, nameAndArgs: string, description: string): Command {
  return leaf(parent, nameAndArgs, description).option("-y, --yes", "do not ask for confirmation (needed without a terminal)");
}

/** Wraps a commander action: any error is printed to stderr and the process exits with 1. */
export function action<A extends unknown[]>(work: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await work(...args);
    } catch (error) {
      process.stderr.write(`error: ${describeError(error)}\n`);
      if (process.env.SPOOKS_DEBUG && error instanceof Error && error.stack) {
        process.stderr.write(
          `${error.stack
            .split("\n")
            .map((line) => withoutControlCharacters(redactUrlsIn(line)))
            .join("\n")}\n`,
        );
      }
      process.exitCode = 1;
    }
  };
}

/**
 * What the operator reads: a refusal's or a validation's own text, or the failure's message (never a URL's
 * password, never a terminal escape a remote answer carried).
 */
export function describeError(error: unknown): string {
  if (error instanceof ZodError) return linesWithoutControlCharacters(redactUrlsIn(firstIssue(error)));
  return linesWithoutControlCharacters(redactUrlsIn(error instanceof Error ? error.message : String(error)));
}

// Input ------------------------------------------------------------------------------------------

/**
 * Parses input with a domain schema; a failure is the schema's first message (the web admin's text),
 * followed by the option it came from when `optionNames` names it.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, optionNames: Record<string, string> = {}): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const option = issue ? optionNames[String(issue.path[0])] : undefined;
  throw new CliError(option ? `${firstIssue(result.error)} (${option})` : firstIssue(result.error));
}

/**
 * Parses a command's options with a domain schema. `fields` maps each schema field to the option it is
 * read from (`{ imageUrl: "image" }` reads --image), so a failure names that option.
 */
export function parseOptions<S extends z.ZodType, O extends object>(
  schema: S,
  options: O,
  fields: Record<string, keyof O & string>,
): z.output<S> {
  const input = Object.fromEntries(Object.entries(fields).map(([field, option]) => [field, options[option]]));
  const optionNames = Object.fromEntries(Object.entries(fields).map(([field, option]) => [field, `--${option}`]));
  return parseInput(schema, input, optionNames);
}

/** A positive whole id from an argument ('7' → 7), or a clear refusal. */
export function parseId(text: string, what: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new CliError(`${what} id must be a positive whole number (got '${text}')`);
  }
  return Number(text);
}

// Database ---------------------------------------------------------------------------------------

/**
 * Opens the configured database (DATABASE_URL, or the embedded one in DATA_DIR, attaching to a running
 * `npm start` when it holds it), applies pending migrations, runs `work`, and always closes.
 */
export async function withDatabase<T>(work: (session: Session) => Promise<T>): Promise<T> {
  loadRendererAhead();
  const config = loadConfig();
  const logger = createCliLogger(config);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, warn: (line) => logger.warn(line) });
  try {
    await migrateAsOwner(db, config.migrateDatabaseUrl);
    return await work({ sql: db.sql, config, ownerUrl: config.migrateDatabaseUrl ?? db.migratorUrl });
  } finally {
    await db.close();
  }
}

// Output -----------------------------------------------------------------------------------------

/**
 * Starts loading Ink, which a text answer is drawn with, while the database opens: opening the embedded one
 * spends tens of milliseconds waiting on its files, about what loading Ink costs (docs/decisions.md, "The CLI's
 * start"). Not for --json, which draws nothing.
 */
function loadRendererAhead(): void {
  if (!process.argv.includes("--json")) import("ink").catch(() => {});
}

/** The width results are drawn to: the terminal's; on a pipe COLUMNS when set, else wide enough that nothing wraps. */
export function outputColumns(): number {
  if (process.stdout.isTTY) return process.stdout.columns || 100;
  return Number(process.env.COLUMNS) || 1000;
}

export function writeJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** Prints the result: `data` as JSON with --json, otherwise the Ink view drawn once to stdout. */
export async function output(options: OutputOptions, data: unknown, view: () => ReactElement | Promise<ReactElement>): Promise<void> {
  if (options.json) return writeJson(data);
  const { renderToString } = await import("ink");
  process.stdout.write(`${renderToString(await view(), { columns: outputColumns() })}\n`);
}

/**
 * Prints a result the API answers too: with --json, what `schema` (its /api contract schema, app/api/)
 * builds from `data`, so the JSON is the API's wire form (ISO dates, only the documented fields).
 */
export function outputAnswer<S extends z.ZodType>(
  options: OutputOptions,
  schema: S,
  data: z.input<S>,
  view: () => ReactElement | Promise<ReactElement>,
): Promise<void> {
  return output(options, options.json ? schema.parse(data) : data, view);
}

// Interaction ------------------------------------------------------------------------------------

/** Confirmation is asked on the terminal: stdin to read the key, stderr to draw the prompt. */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/**
 * Before a destructive change: passes with --yes; asks in an Ink prompt on a terminal; refuses without
 * one. A refusal or a "no" throws, so nothing is changed.
 */
async function confirmOrRefuse(options: DestructiveOptions, question: string): Promise<void> {
  if (options.yes) return;
  if (!canAsk()) {
    throw new CliError(
      "refused: this change needs confirmation and there is no terminal to ask on; nothing was changed (pass --yes to confirm)",
    );
  }
  const { askConfirmation } = await import("./live.tsx");
  if (!(await askConfirmation(question))) throw new CliError("cancelled: nothing was changed");
}

/**
 * A destructive change in one database session: `question` reads what is about to change (a missing
 * record refuses before anything is asked) and words the question; once confirmed, `change` runs.
 */
export function withConfirmedChange<T>(
  options: DestructiveOptions,
  question: (session: Session) => string | Promise<string>,
  change: (session: Session) => Promise<T>,
): Promise<T> {
  return withDatabase(async (session) => {
    await confirmOrRefuse(options, await question(session));
    return change(session);
  });
}

export type ReportProgress = (done: number, total?: number) => void;

/**
 * Runs long work, drawing its progress live on a terminal's stderr (stdout keeps only the result).
 * Without a terminal, or with --json, the work runs silently.
 */
export async function withProgress<T>(options: OutputOptions, label: string, work: (report: ReportProgress) => Promise<T>): Promise<T> {
  if (options.json || !process.stderr.isTTY) return work(() => {});
  const { showProgress } = await import("./live.tsx");
  const progress = showProgress(label);
  try {
    return await work(progress.update);
  } finally {
    progress.done();
  }
}
