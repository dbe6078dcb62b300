/** `spooks-admin` entry point (run through cli/bin/spooks-admin.js; compiled, through cli/compiled-entry.ts). */
import { pgliteWasmModule } from "../db/pglite-wasm.server.ts";
import { createProgram, opensDatabase } from "./program.ts";

// A command on the embedded database (no DATABASE_URL): PGlite's WebAssembly compiles while the command loads.
if (!process.env.DATABASE_URL && opensDatabase(process.argv)) void pgliteWasmModule();

await (await createProgram(process.argv)).parseAsync(process.argv);
// Everything is closed by now; should a stray handle keep the process up, do not hang the operator's shell.
setTimeout(() => process.exit(), 2000).unref();
