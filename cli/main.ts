/** `spooks-admin` entry point (run through cli/bin/spooks-admin.js; compiled, through cli/compiled-entry.ts). */
import { createProgram } from "./program.ts";

await (await createProgram(process.argv)).parseAsync(process.argv);
// Everything is closed by now; should a stray handle keep the process up, do not hang the operator's shell.
setTimeout(() => process.exit(), 2000).unref();
