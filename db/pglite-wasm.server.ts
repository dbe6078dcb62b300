/**
 * PGlite's WebAssembly (9 MB), read and compiled once per process. Compiling it takes V8 about 50 ms, on its own
 * threads: begun as the CLI starts (cli/main.ts), it is done by the time the command has loaded and opens the
 * embedded database, instead of the command waiting for it there (docs/decisions.md, "The CLI's start").
 */
import fs from "node:fs";

let compiling: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * The compiled module for PGlite.create's `pgliteWasmModule`; undefined when it could not be read or compiled,
 * and PGlite then reads and compiles its file itself (and reports what is wrong with it).
 */
export function pgliteWasmModule(): Promise<WebAssembly.Module | undefined> {
  compiling ??= compile().catch(() => undefined);
  return compiling;
}

/**
 * Read at once (a few ms from the page cache): read in the background, the file would arrive in 512 KB pieces,
 * each waiting for the busy main thread, and the compile would begin only when the command had loaded.
 */
async function compile(): Promise<WebAssembly.Module> {
  // A compile in progress does not keep Node's event loop alive: a command awaiting nothing else would end there.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    return await WebAssembly.compile(fs.readFileSync(new URL("pglite.wasm", import.meta.resolve("@electric-sql/pglite"))));
  } finally {
    clearInterval(keepAlive);
  }
}
