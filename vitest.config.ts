import { defineConfig } from "vitest/config";
import { testGroups } from "./tests/setup/test-groups.ts";

// The suite's four groups (tests/setup/test-groups.ts says how a file is sorted): `npm run test:unit`,
// `test:db`, `test:system` and `test:e2e` run one each; `npm test` runs them all. Only the `db` and `e2e`
// groups read the suite's database engine, so only they prepare its migrated template.
const groups = testGroups();
const readsEngine = { globalSetup: ["tests/setup/global-setup.ts"] };
/** Files run one after another in a worker that keeps its modules; each-shared-file.ts runs after each-file.ts. */
const sharedWorker = { isolate: false, setupFiles: ["tests/setup/each-shared-file.ts"] };

export default defineConfig({
  test: {
    pool: "forks",
    // Most files wait on a browser, a server or a database more than they compute: on a 2-core machine three
    // files at a time finish sooner than two (the whole suite 648 s → 510 s; two left the cores idle 13 % of
    // it) or one (SPOOKS_TEST_WORKERS overrides).
    maxWorkers: Number(process.env.SPOOKS_TEST_WORKERS ?? 3),
    setupFiles: ["tests/setup/each-file.ts"],
    testTimeout: 30_000,
    // expect.poll waits for the state a test needs, not for a time a loaded machine may not meet (vitest's own
    // default gives up after 1 s); a state that never comes still fails, after 15 s.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
    // The app's production build (tests/support/builds.ts writes it under .test-data/) is loaded by Node itself,
    // as production loads it, not through vitest's module runner: its 1.2 MB server bundle took 7-8 s there in
    // every file that starts a server, 1-1.5 s natively. No test mocks a module the build imports.
    server: { deps: { external: [/\/\.test-data\//] } },
    projects: [
      { extends: true, test: { name: "unit", include: groups.unit } },
      { extends: true, test: { name: "system", include: groups.system } },
      // A new worker for each `db` file imported the app again (59 s over the group's 87 files) and compiled
      // PGlite's WebAssembly again. Its files share their worker's modules instead (the group alone: 321 s →
      // 205 s); each-shared-file.ts resets what a module remembers (docs/decisions.md says what each keeps).
      { extends: true, test: { name: "db", include: groups.db, ...readsEngine, ...sharedWorker } },
      // A browser test is a journey of many steps, each waiting (10-15 s at most) for the state it needs; on a
      // loaded 2-core machine a 20 s journey takes twice that, so the whole has a budget of its own. Its files
      // share their worker's modules too: the group alone took 684 s instead of 808 s, its test workers' CPU
      // 228 s instead of 417 s (each file had imported the app, PGlite and Playwright's client again).
      { extends: true, test: { name: "e2e", include: groups.e2e, testTimeout: 60_000, ...readsEngine, ...sharedWorker } },
    ],
  },
});
