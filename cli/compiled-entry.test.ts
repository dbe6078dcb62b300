/**
 * The compiled CLI runs its command in a second Node started with `--liftoff-only` (cli/compiled-entry.ts): the
 * command's process carries the flag, a signal sent to the first reaches the command, and the command's exit is the
 * first's.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { ensureCompiledPrograms } from "../tests/support/builds.ts";
import { cliEnv, runCli } from "./testing/run-cli.ts";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-cli-entry-"));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const LOG_KEY = "spooks.example/log+cf4ebf86+AVbbVDez+qD06A/fPCxdJ2bfipn7doGOp81Mz/X/d3EK";

/** The processes whose parent is `pid` (Linux's /proc). */
function childrenOf(pid: number): number[] {
  const tasks = path.join("/proc", String(pid), "task");
  return fs.readdirSync(tasks).flatMap((task) =>
    fs
      .readFileSync(path.join(tasks, task, "children"), "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number),
  );
}
const commandLineOf = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));

it("runs the command in a Node started with --liftoff-only; SIGTERM to the first reaches it; its exit is the first's", async () => {
  const program = path.join(await ensureCompiledPrograms(), "spooks-admin.js");
  const env = cliEnv(undefined);
  const args = ["witness", "--port", "0", "--key", path.join(folder, "witness.key"), "--log", LOG_KEY];
  const first = spawn(process.execPath, [program, "log", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  first.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  first.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => first.once("exit", (code) => resolve(code)));
  await expect.poll(() => output, { timeout: 20_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);

  const [command] = childrenOf(first.pid!);
  expect(commandLineOf(command)).toEqual([process.execPath, "--liftoff-only", program, "log", ...args]);
  first.kill("SIGTERM");
  expect(await exited).toBe(0); // the witness closed its server and ended of its own accord
  expect(alive(command)).toBe(false);
});

it("a refused command's exit code and words pass through", async () => {
  expect(await runCli(["points", "add", "not-an-address", "5"], cliEnv(undefined))).toEqual({
    code: 1,
    stdout: "",
    stderr: "error: Invalid Dogecoin address\n",
  });
});
