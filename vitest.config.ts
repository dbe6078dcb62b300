import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{app,db,indexer,cli,server,tests}/**/*.test.{ts,tsx}"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/each-file.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
  },
});
