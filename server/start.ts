/**
 * `npm start`: the whole product in one process — web server, indexer (unless --no-indexer), and in demo
 * mode the simulated chain and demo wallets. `--dev` serves through vite with hot reload.
 * Start-up stops with one clear line when configuration, the database or a migration is wrong.
 */
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { ServerBuild } from "react-router";
import type { AppContext } from "../app/context.ts";
import { redactUrlsIn } from "../app/domain/redact.ts";
import { checkWebServerConfig, loadConfig } from "../app/utils/env.server.ts";
import { createLogger } from "../app/utils/logger.server.ts";
import { appVersion, projectRoot } from "../app/utils/project-root.server.ts";
import { openDatabase, openRequestSql, type Database } from "../db/client.server.ts";
import { migrateAsOwner } from "../db/migrate.server.ts";
import { appRoleWarning } from "../db/roles.server.ts";
import { startIndexer } from "../indexer/service.server.ts";
import { createApp } from "./app.ts";
import { build as buildApp, isBuildFresh } from "./build.ts";
import { startDemo, type Demo } from "./demo.server.ts";
import { publishDemoDiscord, startDemoDiscord, type ChannelPost, type DemoDiscord } from "./demo-discord.server.ts";
import { registerCommandsAtStart } from "../app/utils/discord-commands.server.ts";
import { publishDemoChain } from "../indexer/draw-chain.server.ts";
import { startOpsServer } from "./ops-server.ts";
import { startPublicLog } from "../app/utils/log-service.server.ts";

const SHUTDOWN_GRACE_MS = 10_000;
/** How often a stopping server closes the connections that have gone idle since it stopped listening. */
const IDLE_SWEEP_MS = 50;
const args = new Set(process.argv.slice(2));
const dev = args.has("--dev");
const withIndexer = !args.has("--no-indexer");
/** `npm start`: build first unless the build folder is up to date (production images are built beforehand). */
const buildIfStale = args.has("--build") && !dev;
const buildDir = path.resolve(process.env.SPOOKS_BUILD_DIR ?? "build");

async function loadBuild(): Promise<{ build: ServerBuild | (() => Promise<ServerBuild>); clientDir?: string; before: never[] }> {
  if (!dev) {
    const build = (await import(path.join(buildDir, "server/index.js"))) as ServerBuild;
    return { build, clientDir: path.join(buildDir, "client"), before: [] };
  }
  const vite = await import("vite");
  const server = await vite.createServer({ server: { middlewareMode: true } });
  return {
    build: () => server.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>,
    before: [server.middlewares as never],
  };
}

async function main() {
  const config = loadConfig();
  checkWebServerConfig(config);
  const logger = createLogger("web", config);
  if (buildIfStale) {
    if (isBuildFresh(buildDir)) logger.info({ msg: "build up to date", dir: buildDir });
    else {
      logger.info({ msg: "building", dir: buildDir });
      await buildApp(buildDir);
    }
  }
  const db: Database = await openDatabase({ ...config, warn: (line) => logger.warn(line) });
  const cleanups: (() => Promise<unknown>)[] = [() => db.close()];
  try {
    const applied = await migrateAsOwner(db, config.migrateDatabaseUrl);
    if (applied.length) logger.info({ msg: "migrations applied", applied });
    const roleWarning = await appRoleWarning(db, config.migrateDatabaseUrl !== undefined);
    if (roleWarning) logger.warn({ msg: roleWarning });
    const publicLog = await startPublicLog(db, config, logger);
    cleanups.unshift(() => publicLog.stop());

    let demo: Demo | null = null;
    if (config.demo) {
      demo = await startDemo(db.sql, {
        dataDir: config.dataDir,
        uploadDir: config.uploadDir,
        staticDirs: [path.join(projectRoot(import.meta.dirname), "public"), path.join(buildDir, "client")],
      });
      cleanups.unshift(() => demo!.chain.close(), publishDemoChain(config.dataDir, demo.chain.url));
      logger.info({ msg: "demo mode", chain: demo.chain.url, holder: demo.holder.address, admin: demo.admin.address });
    }
    // Demo mode without DISCORD_*: the Discord double in-process, so linking can be clicked through (docs/discord.md).
    let discord = config.discord;
    let notifications = config.notifications;
    let channelPosts: (() => ChannelPost[]) | undefined;
    let demoDiscord: DemoDiscord | null = null;
    if (config.demo && !discord) {
      const host = config.host === "0.0.0.0" ? "localhost" : config.host;
      const origins = [
        ...new Set([
          config.publicUrl,
          `http://${host}:${config.port}`,
          `http://localhost:${config.port}`,
          `http://127.0.0.1:${config.port}`,
        ]),
      ];
      const double = await startDemoDiscord(
        db.sql,
        origins.filter((origin): origin is string => Boolean(origin)),
      );
      demoDiscord = double;
      cleanups.unshift(() => double.close(), publishDemoDiscord(config.dataDir, double.config));
      discord = double.config;
      // The public events go to the double's announcements channel, shown in the admin's Notifications tab.
      if (!config.notifications.discordWebhookUrl) {
        notifications = { ...config.notifications, discordWebhookUrl: double.channelWebhookUrl };
        channelPosts = () => double.channelPosts();
      }
      logger.info({ msg: "demo Discord", url: double.url });
    }
    const adminAddress = config.adminAddress ?? demo?.admin.address;
    if (!adminAddress) throw new Error("ADMIN_ADDRESS is not set");
    const ordUrl = config.ordUrl ?? demo!.chain.url;

    if (withIndexer) {
      const indexer = await startIndexer({
        sql: db.sql,
        config: { ...config, ordUrl, discord, notifications },
        logger: createLogger("indexer", config),
      });
      cleanups.unshift(() => indexer.stop());
    }
    const { metricsPort, metricsHost, indexerStaleAfterSeconds } = config.ops;
    if (metricsPort !== undefined) {
      const ops = await startOpsServer({
        port: metricsPort,
        host: metricsHost,
        role: withIndexer ? "web+indexer" : "web",
        version: appVersion(),
        sql: db.sql,
        indexerStaleAfterSeconds: withIndexer ? indexerStaleAfterSeconds : undefined,
        logger,
      });
      cleanups.unshift(() => ops.close());
    }

    // Requests get their own pool on PostgreSQL, with a statement timeout (db/client.server.ts).
    const requests = openRequestSql(db, config.databaseUrl);
    cleanups.splice(cleanups.length - 1, 0, () => requests.close());
    const context: AppContext = {
      sql: requests.sql,
      config: { ...config, ordUrl, adminAddress, discord, notifications },
      demoWallets: demo?.wallets ?? [],
      demoChannelPosts: channelPosts,
    };
    const { build, clientDir, before } = await loadBuild();
    const app = createApp({ context, build, clientDir, before, dev, logger });
    const server = app.listen(config.port, config.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = config.host === "0.0.0.0" ? "localhost" : config.host;
      logger.info({ msg: "listening", url: `http://${host}:${port}`, database: db.description, demo: config.demo });
      // Slash commands (issue 37): registered with one bulk overwrite; the demo's double then delivers them here.
      void registerCommandsAtStart(discord, logger).then(() =>
        demoDiscord
          ?.connectInteractions(`http://${demoHost(config.host)}:${port}/api/discord/interactions`)
          .catch((error: Error) => logger.warn({ msg: "demo Discord: the Interactions Endpoint URL was refused", err: error })),
      );
    });
    server.on("error", (error) => fail(error));
    cleanups.unshift(
      () =>
        new Promise<void>((resolve) => {
          // A keep-alive connection whose request was under way becomes idle once its answer is sent; it is closed
          // then, not when its keep-alive timeout ends (seconds later, which the shutdown would wait out).
          const closeIdle = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
          server.close(() => {
            clearInterval(closeIdle);
            resolve();
          });
          server.closeIdleConnections();
        }),
    );
    const shutdown = async (signal: string) => {
      logger.info({ msg: "shutting down", signal });
      const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
      for (const cleanup of cleanups) await cleanup().catch((error) => logger.error({ msg: "shutdown step failed", err: error }));
      clearTimeout(force);
      process.exit(0);
    };
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
  } catch (error) {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    throw error;
  }
}

/** Where the demo's Discord double reaches this server: loopback unless HOST names one address. */
function demoHost(bound: string): string {
  if (bound === "0.0.0.0" || bound === "::" || bound === "localhost") return "127.0.0.1";
  return bound.includes(":") ? `[${bound}]` : bound;
}

function fail(error: unknown): never {
  console.error(`spooks: ${redactUrlsIn((error as Error).message ?? String(error))}`);
  process.exit(1);
}

main().catch(fail);
