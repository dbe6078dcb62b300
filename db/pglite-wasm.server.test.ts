import { expect, it } from "vitest";
import { pgliteWasmModule } from "./pglite-wasm.server.ts";
import { freshPGlite } from "./testing/fresh-pglite.ts";

it("compiles PGlite's WebAssembly once per process, and PGlite starts on that module", { timeout: 60_000 }, async () => {
  const module = await pgliteWasmModule();
  expect(module).toBeInstanceOf(WebAssembly.Module);
  expect(await pgliteWasmModule()).toBe(module);
  const db = await freshPGlite({ pgliteWasmModule: module });
  try {
    expect((await db.query<{ answer: number }>("select 41 + 1 as answer")).rows).toEqual([{ answer: 42 }]);
  } finally {
    await db.close();
  }
});
