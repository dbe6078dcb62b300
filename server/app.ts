/**
 * The HTTP server: security headers on everything, only the site's own host names (DNS rebinding), static
 * assets, uploaded images, abuse limits, then React Router (pages and /api resource routes). `createApp`
 * takes everything it serves as arguments, so tests run the real handler on their own database.
 * docs/security.md explains the hardening.
 */
import compression from "compression";
import express from "express";
import type { ServerBuild } from "react-router";
import type { AppContext } from "../app/context.ts";
import fs from "node:fs";
import path from "node:path";
import { createLogger, type Logger } from "../app/utils/logger.server.ts";
import { projectRoot } from "../app/utils/project-root.server.ts";
import { onlyAllowedHosts } from "./allowed-hosts.ts";
import { answerErrors, fileNotFound, malformedPath, notFound, unansweredMethod } from "./fallbacks.ts";
import { httpMetrics } from "./http-metrics.ts";
import { rateLimits } from "./rate-limits.ts";
import { createRequestHandler } from "./request-handler.ts";
import { requestLog } from "./request-log.ts";
import { securityHeaders } from "./security.ts";

export type AppOptions = {
  context: AppContext;
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Built client assets (build/client); absent in dev, where vite serves them. */
  clientDir?: string;
  /** Extra middleware placed before React Router (vite's in dev). */
  before?: express.RequestHandler[];
  /** Development (vite): the CSP also allows the hot-reload socket. */
  dev?: boolean;
  /** The rate limits' window (one minute; tests shorten it to see a limit reset). */
  rateLimitWindowMs?: number;
  /** Where request lines and errors are logged (default: a "web" logger at LOG_LEVEL). */
  logger?: Logger;
};

export function createApp({ context, build, clientDir, before = [], dev = false, rateLimitWindowMs, logger }: AppOptions): express.Express {
  const { config } = context;
  // Which collections have local pictures (issue 33, item 10): in dev vite serves public/ itself.
  context.localImageCollections ??= collectionsWithLocalImages(clientDir ?? path.join(projectRoot(import.meta.dirname), "public"));
  const app = express();
  const metrics = httpMetrics(build);
  app.use(metrics.measure);
  app.disable("x-powered-by");
  // Whose X-Forwarded-For/-Proto/-Host to believe (TRUST_PROXY): client IPs, https, the request's host.
  app.set("trust proxy", config.trustProxy);
  app.use(securityHeaders({ config, dev }));
  // Before anything is read or served: a rebound name gets no page, no file and no demo key.
  app.use(onlyAllowedHosts(config.publicUrl));
  app.use(compression());
  app.use(
    "/uploads",
    // nosniff (from securityHeaders) keeps a stored file from being read as anything but its type.
    express.static(config.uploadDir, { index: false, maxAge: "1d" }),
    fileNotFound,
  );
  if (clientDir) {
    app.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y" }), fileNotFound);
    app.use(express.static(clientDir, { maxAge: "1h", index: false }));
  }
  for (const middleware of before) app.use(middleware);
  app.use(metrics.route);
  // One line per request from here on: static files (above) and vite's modules in dev are not logged.
  const log = logger ?? createLogger("web", config);
  app.use(requestLog(log));
  app.use(unansweredMethod, malformedPath);
  app.use(rateLimits(config.rateLimits, { sql: context.sql, logger: log, windowMs: rateLimitWindowMs }));
  app.use(
    createRequestHandler({
      build,
      publicUrl: config.publicUrl,
      getLoadContext: (req, res) => ({ ...context, cspNonce: res.locals.cspNonce as string, logger: req.log, clientIp: req.ip }),
    }),
  );
  app.use(notFound);
  app.use(answerErrors(log));
  return app;
}

/** The collections with a `collection_images/{collection}/` folder in `staticDir` (none when it has no such folder). */
export function collectionsWithLocalImages(staticDir: string): string[] {
  try {
    return fs
      .readdirSync(path.join(staticDir, "collection_images"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}
