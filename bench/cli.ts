/**
 * How long `spooks-admin` takes to answer, compiled (build/node/spooks-admin.js, as production and the image run
 * it), on the embedded database of a fresh DATA_DIR (migrated by a first, untimed run): `--version`, `users`,
 * `giveaways list`, `proposals list`, `boosts show`. Issue 33, item 10 asks for under a second on the project's
 * machine; each command's median of RUNS runs is printed beside that target. Started as the installed command
 * starts it (cli/bin/spooks-admin.js's shebang: `node --liftoff-only`); `users` also as `node <compiled>`, which
 * starts a second Node with that flag (cli/compiled-entry.ts), and with V8's default tiers (SPOOKS_CLI_TIERED=1),
 * the baseline the flag is measured against. `npm run bench -- cli`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileEntryPoints, ROOT } from "../server/build.ts";

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
const TARGET_MS = 1000;
const COMMANDS = [["--version"], ["users"], ["giveaways", "list"], ["proposals", "list"], ["boosts", "show"]];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function run(): Promise<void> {
  // Inside the project, so the compiled program finds node_modules.
  const outDir = path.join(ROOT, ".test-data", "bench-cli");
  await compileEntryPoints(outDir);
  const cli = path.join(outDir, "spooks-admin.js");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-bench-cli-"));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: "silent", NO_COLOR: "1" };
  const once = (args: string[], nodeFlags: string[] = ["--liftoff-only"], extraEnv: Record<string, string> = {}) => {
    const started = performance.now();
    execFileSync(process.execPath, [...nodeFlags, cli, ...args], { env: { ...env, ...extraEnv }, stdio: "pipe" });
    return performance.now() - started;
  };
  const report = (label: string, times: number[]) => {
    const ms = median(times);
    console.log(
      `spooks-admin ${label.padEnd(40)} median ${ms.toFixed(0).padStart(5)} ms (min ${Math.min(...times).toFixed(0)}, ` +
        `max ${Math.max(...times).toFixed(0)}; target < ${TARGET_MS} ms: ${ms < TARGET_MS ? "met" : "NOT met"})`,
    );
  };
  try {
    once(["users"]); // creates and migrates the embedded database
    for (const args of COMMANDS)
      report(
        args.join(" "),
        Array.from({ length: RUNS }, () => once(args)),
      );
    report(
      "users --json",
      Array.from({ length: RUNS }, () => once(["users", "--json"])),
    );
    report(
      "users (node <compiled>: a second Node)",
      Array.from({ length: RUNS }, () => once(["users"], [])),
    );
    report(
      "users (baseline: V8's default tiers)",
      Array.from({ length: RUNS }, () => once(["users"], [], { SPOOKS_CLI_TIERED: "1" })),
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
