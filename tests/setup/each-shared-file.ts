/**
 * The `db` and `e2e` groups' files run one after another in a worker that keeps its modules (vitest.config.ts
 * says why): what a module, or the process, remembers between calls lives on into the next file. Each file starts
 * as in a new process: with none of the content cache's remembered failures and no metrics (their registry lives
 * on globalThis, with the role of the first file that enabled them and gauges reading that file's pool); and a
 * file that leaves the app's clock set (setClock without its restore) fails.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { nowMs } from "../../app/domain/clock.ts";
import { forgetContentFailures } from "../../app/utils/content-cache.server.ts";
import { forgetMetrics } from "../../app/utils/metrics.server.ts";

beforeAll(() => {
  forgetContentFailures();
  forgetMetrics();
});

afterAll(() => {
  expect(Math.abs(nowMs() - Date.now()), "the app's clock is still set: a setClock was not restored").toBeLessThan(1_000);
});
