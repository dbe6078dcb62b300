#!/usr/bin/env node
// `spooks-admin`: runs cli/main.ts through tsx, so `npx spooks-admin …` works without a build step.
import { register } from "tsx/esm/api";

// Settings from ./.env when there is one, as `npm start` reads them (--env-file-if-exists); the environment wins.
try {
  process.loadEnvFile(".env");
} catch (error) {
  if (error.code !== "ENOENT") throw error;
}
register();
await import(new URL("../main.ts", import.meta.url).href);
