#!/usr/bin/env node
// `spooks-admin`: runs cli/main.ts through tsx, so `npx spooks-admin …` works without a build step.
import { register } from "tsx/esm/api";

register();
await import(new URL("../main.ts", import.meta.url).href);
