#!/usr/bin/env -S node --liftoff-only
// `spooks-admin`. In a checkout (tsx installed with the dev dependencies) it runs cli/main.ts through tsx, so
// `npx spooks-admin …` always runs the sources as they are, with no build step; where tsx is absent (the
// production image, an install without dev dependencies) it runs the compiled CLI, build/node/spooks-admin.js.
// Node starts with --liftoff-only, which the compiled CLI would otherwise start a second Node for (see
// cli/compiled-entry.ts: a command is over before V8's optimizing compile of PGlite's WebAssembly would pay off).
import { existsSync } from "node:fs";

// Settings from ./.env when there is one, as `npm start` reads them (--env-file-if-exists); the environment wins.
try {
  process.loadEnvFile(".env");
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
const sources = new URL("../main.ts", import.meta.url);
const tsx = existsSync(sources) ? await import("tsx/esm/api").catch(() => null) : null;
if (tsx) {
  tsx.register();
  await import(sources.href);
} else {
  await import(new URL("../../build/node/spooks-admin.js", import.meta.url).href);
}
