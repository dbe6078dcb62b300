/**
 * The compiled CLI's first module (build/node/spooks-admin.js): it turns on Node's compile cache, then loads the
 * CLI. The cache keeps the bytecode of the bundle's chunks between runs (in the system's temporary folder), so a
 * command after the first does not compile them again; where the cache cannot be written, the CLI runs as before.
 *
 * A command lives for a second, but V8 compiles the embedded database's WebAssembly twice: at once with its
 * baseline compiler (Liftoff), then again, optimized, on background threads. That second compile is seconds of CPU
 * a short run never gets back. V8 reads its flags once, at start, so the CLI runs itself again with
 * `--liftoff-only` (one more Node start, about 50 ms) unless it was started with it (docs/decisions.md, "The CLI's
 * start"). Started without the flag, SPOOKS_CLI_TIERED=1 keeps V8's default tiers instead, for a long command on a
 * big embedded database (the installed command, cli/bin/spooks-admin.js, starts Node with the flag itself).
 */
import module from "node:module";

const BASELINE_ONLY = "--liftoff-only";

if (process.execArgv.includes(BASELINE_ONLY) || process.env.SPOOKS_CLI_TIERED === "1") {
  module.enableCompileCache?.();
  await import("./main.ts");
} else {
  await runAgainBaselineOnly();
}

/**
 * The same command in a child Node with the flag, on this terminal; its exit is this process's. child_process
 * (with net and dgram) is loaded only here: a command started with the flag never needs it.
 */
async function runAgainBaselineOnly(): Promise<void> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [BASELINE_ONLY, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
  // Ctrl-C reaches both processes (one process group): the child decides; a signal sent to this one alone is passed on.
  const forward = (signal: NodeJS.Signals) => () => {
    if (signal !== "SIGINT") child.kill(signal);
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const handlers = signals.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  child.on("error", (error) => {
    process.stderr.write(`error: could not start the CLI: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on("exit", (code, signal) => {
    for (const [name, handler] of handlers) process.off(name, handler);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
}
