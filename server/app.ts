/**
 * The HTTP server: static assets, uploaded images, then React Router (pages and /api resource routes).
 * `createApp` takes everything it serves as arguments, so tests run the real handler on their own
 * database.
 */
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import type { ServerBuild } from "react-router";
import type { AppContext } from "../app/context.ts";

export type AppOptions = {
  context: AppContext;
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Built client assets (build/client); absent in dev, where vite serves them. */
  clientDir?: string;
  /** Extra middleware placed before React Router (vite's in dev). */
  before?: express.RequestHandler[];
};

export function createApp({ context, build, clientDir, before = [] }: AppOptions): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(compression());
  app.use(
    "/uploads",
    express.static(context.config.uploadDir, {
      index: false,
      maxAge: "1d",
      setHeaders: (res) => res.setHeader("X-Content-Type-Options", "nosniff"),
    }),
  );
  if (clientDir) {
    app.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y" }));
    app.use(express.static(clientDir, { maxAge: "1h", index: false }));
  }
  for (const middleware of before) app.use(middleware);
  app.use(createRequestHandler({ build, getLoadContext: () => context }));
  return app;
}
