/**
 * The real app over real HTTP for tests: a production build (made once per source state, in
 * .test-data/build-<hash>, under a lock so parallel runs never race) served by server/app.ts on a
 * loopback port, with the test file's own database in the context.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { ServerBuild } from "react-router";
import type { AppContext, DemoWallet } from "../../app/context.ts";
import { loadConfig, type Config } from "../../app/utils/env.server.ts";
import { createLogger } from "../../app/utils/logger.server.ts";
import type { Sql } from "../../db/client.server.ts";
import { createApp } from "../../server/app.ts";
import { compileEntryPoints, hashBuildInputs, isBuildFresh, stampBuild } from "../../server/build.ts";
import { sleep } from "./net.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Makes `dir` once per source state: the first test file to get here runs `make` under a lock folder while the
 * others wait (a lock older than five minutes is a crashed run's and is taken over).
 */
async function buildOnce(dir: string, doneFile: string, make: (dir: string) => void | Promise<void>): Promise<void> {
  const done = path.join(dir, doneFile);
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (let waited = 0; !fs.existsSync(done); waited += 500) {
    try {
      fs.mkdirSync(lock);
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 5 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      if (!fs.existsSync(done)) await make(dir);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Builds the app once for the current sources; returns the build folder. */
export async function ensureAppBuild(): Promise<string> {
  const inputsHash = hashBuildInputs();
  const dir = path.join(ROOT, ".test-data", `build-${inputsHash}`);
  await buildOnce(dir, path.join("server", "index.js"), () => {
    execFileSync(path.join(ROOT, "node_modules/.bin/react-router"), ["build"], {
      cwd: ROOT,
      env: { ...process.env, SPOOKS_BUILD_DIR: dir, NODE_ENV: "production" },
      stdio: "pipe",
    });
  });
  // The folder's name is its inputs' hash; the stamp inside lets `npm start` reuse it (SPOOKS_BUILD_DIR).
  if (!isBuildFresh(dir, inputsHash)) stampBuild(dir, inputsHash);
  return dir;
}

/**
 * The compiled programs (build/node/ of `npm run build`: start.js, indexer.js, spooks-admin.js,
 * healthcheck.cjs) once for the current sources, inside the project so node_modules is found; returns
 * their folder.
 */
export async function ensureCompiledPrograms(): Promise<string> {
  const dir = path.join(ROOT, ".test-data", `node-${hashBuildInputs()}`);
  await buildOnce(dir, "healthcheck.cjs", (into) => compileEntryPoints(into));
  return dir;
}

export type TestServer = { url: string; context: AppContext; close(): Promise<void> };

export type TestServerOptions = {
  sql: Sql;
  adminAddress: string;
  demoWallets?: DemoWallet[];
  env?: Record<string, string>;
  /** The rate limits' window (default one minute). */
  rateLimitWindowMs?: number;
};

/** Starts the real app on 127.0.0.1 with a random port. */
export async function startTestServer({
  sql,
  adminAddress,
  demoWallets = [],
  env = {},
  rateLimitWindowMs,
}: TestServerOptions): Promise<TestServer> {
  const buildDir = await ensureAppBuild();
  const build = (await import(path.join(buildDir, "server/index.js"))) as ServerBuild;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-test-"));
  const config: Config = loadConfig({
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    ORD_URL: "http://127.0.0.1:9",
    ADMIN_ADDRESS: adminAddress,
    // A test file sends its requests from one address, faster than a person: the general limits are off unless a test sets them.
    RATE_LIMIT_READS_PER_MIN: "0",
    RATE_LIMIT_CONTENT_PER_MIN: "0",
    // The outside hosts the tests' giveaway pictures use (a picture elsewhere is refused, naming IMAGE_HOSTS).
    IMAGE_HOSTS: "https://example.com,https://images.example",
    ...env,
  });
  const context: AppContext = { sql, config: { ...config, adminAddress }, demoWallets };
  // Warnings and errors only, whatever NODE_ENV the test gives (production would log every request), unless it sets LOG_LEVEL.
  const logger = createLogger("web", { logLevel: config.logLevel ?? "warn", logFormat: config.logFormat });
  const app = createApp({ context, build, clientDir: path.join(buildDir, "client"), rateLimitWindowMs, logger });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    context,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
