/**
 * The `db` group's files run one after another in a worker that keeps its modules (vitest.config.ts says why):
 * what a module remembers between calls lives on into the next file. Each file starts with none of the content
 * cache's remembered failures, and a file that leaves the app's clock set (setClock without its restore) fails.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { nowMs } from "../../app/domain/clock.ts";
import { forgetContentFailures } from "../../app/utils/content-cache.server.ts";

beforeAll(() => forgetContentFailures());

afterAll(() => {
  expect(Math.abs(nowMs() - Date.now()), "the app's clock is still set: a setClock was not restored").toBeLessThan(1_000);
});
