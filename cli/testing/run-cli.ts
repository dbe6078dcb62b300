/**
 * Runs `spooks-admin` as a child process, as an operator would, with no terminal: stdin is closed,
 * stdout/stderr are pipes, CI=1 and colours off. Spawned asynchronously, so a PGlite test database served
 * from the test process keeps answering while the child talks to it.
 *
 * By default the compiled CLI runs (build/node/spooks-admin.js, what production and the image run, built once
 * per source state, started with `--liftoff-only` as the installed command starts it): it starts in a fraction
 * of the time the sources take through tsx, which the suite's hundreds of runs add up. `program: "bin"` runs
 * cli/bin/spooks-admin.js, the command `npx spooks-admin` starts in a checkout (sources through tsx, ./.env read
 * first); its own tests use it.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { ensureCompiledPrograms } from "../../tests/support/builds.ts";

export const BIN = path.resolve(import.meta.dirname, "../bin/spooks-admin.js");

let compiled: Promise<string> | undefined;
const compiledCli = () => (compiled ??= ensureCompiledPrograms().then((dir) => path.join(dir, "spooks-admin.js")));

export type CliResult = { code: number | null; stdout: string; stderr: string };

export type CliEnv = Record<string, string | undefined>;

/** The child's environment: the test database, its own DATA_DIR, no terminal niceties. */
export function cliEnv(databaseUrl: string | undefined, extra: CliEnv = {}): CliEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    NODE_ENV: "test",
    CI: "1",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    DATABASE_URL: databaseUrl,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "spooks-cli-")),
    LOG_LEVEL: "silent",
    // The outside host the tests' giveaway pictures use (a picture elsewhere is refused, naming IMAGE_HOSTS).
    IMAGE_HOSTS: "https://example.com",
    ...extra,
  };
}

export type RunOptions = {
  timeoutMs?: number;
  /** Runs the program under another command, e.g. `["faketime", "2030-01-01 12:00:00"]`. */
  via?: readonly string[];
  /** The folder it runs in (where the bin looks for .env). */
  cwd?: string;
  program?: "compiled" | "bin";
};

export async function runCli(
  args: readonly string[],
  env: CliEnv,
  { timeoutMs = 30_000, via = [], cwd, program = "compiled" }: RunOptions = {},
): Promise<CliResult> {
  const file = program === "bin" ? BIN : await compiledCli();
  // The compiled CLI started as the installed command starts it (cli/bin/spooks-admin.js's shebang): with the flag
  // it would otherwise start a second Node for (cli/compiled-entry.ts; its own test starts it without).
  const nodeFlags = program === "bin" ? [] : ["--liftoff-only"];
  const [command, ...prefix] = [...via, process.execPath, ...nodeFlags];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, file, ...args], {
      cwd,
      env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      stdio: ["ignore", "pipe", "pipe"],
      // A group of its own, so a timeout ends whatever the command started too.
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), timeoutMs);
    child.once("error", (error) => (clearTimeout(timer), reject(error)));
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs with --json and parses stdout; fails loudly (with stderr) when the command did not succeed. */
export async function runJson<T = unknown>(args: readonly string[], env: CliEnv): Promise<T> {
  const result = await runCli([...args, "--json"], env);
  if (result.code !== 0) throw new Error(`spooks-admin ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
