/**
 * The compiled CLI's first module (build/node/spooks-admin.js): it turns on Node's compile cache, then loads the
 * CLI. The cache keeps the bytecode of the bundle's chunks between runs (in the system's temporary folder), so a
 * command after the first does not compile them again; where the cache cannot be written, the CLI runs as before.
 */
import module from "node:module";

module.enableCompileCache?.();
await import("./main.ts");
