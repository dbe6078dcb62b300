/**
 * The real app over real HTTP for tests: a production build (builds.ts) served by server/app.ts on a
 * loopback port, with the test file's own database in the context.
 */
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
import { ensureAppBuild } from "./builds.ts";

export { ensureAppBuild, ensureCompiledPrograms } from "./builds.ts";

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
    RATE_LIMIT_EMAIL_PER_MIN: "0",
    RATE_LIMIT_DISCORD_LINK_PER_MIN: "0",
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
