/**
 * React Router behind Express, as @react-router/express does it, except for the URL each request is
 * answered as: React Router compares an action's `Origin` with that URL (its own CSRF check), and our
 * sign-in, cookies and cross-site check are bound to it too. So it is
 * - PUBLIC_URL's origin when set (one public origin, whatever Host or forwarded headers say);
 * - else the protocol and host Express reads: the socket and `Host`, or `X-Forwarded-Proto`/`-Host` only
 *   from a peer TRUST_PROXY names (Express's `trust proxy`).
 * Behind a TLS proxy that is not trusted, the request looked like plain http, so React Router refused
 * every form action whose Origin said https: the fix is to trust that proxy, not to skip the check.
 */
import { createReadableStreamFromReadable, writeReadableStreamToWritable } from "@react-router/node";
import type express from "express";
import { createRequestHandler as createReactRouterHandler, type AppLoadContext, type ServerBuild } from "react-router";
import { withRequestLogger } from "../app/utils/logger.server.ts";
import { servedTarget } from "./served-path.ts";

/** A host as a URL may carry it: name or IPv4, or [IPv6], with an optional port. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export const isWellFormedHost = (host: string | undefined): host is string => Boolean(host && HOST.test(host));

export class BadHostError extends Error {}

/** The origin a request is answered as (see above); a malformed Host or protocol is a BadHostError. */
export function requestOrigin(req: express.Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const protocol = req.protocol;
  const host = req.host;
  if ((protocol !== "http" && protocol !== "https") || !isWellFormedHost(host)) {
    throw new BadHostError("The request's Host (or a trusted proxy's X-Forwarded-Host/-Proto) is not a valid host");
  }
  return `${protocol}://${host}`;
}

function toFetchRequest(req: express.Request, res: express.Response, origin: string): Request {
  const headers = new Headers();
  for (const [name, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(name, value);
  }
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = createReadableStreamFromReadable(req);
    init.duplex = "half";
  }
  // Origin and path side by side: resolving originalUrl against the origin would let `//other.host/…` choose the host.
  const { pathname, search } = servedTarget(req.originalUrl);
  return new Request(`${origin}${pathname}${search}`, init);
}

async function send(res: express.Response, response: Response): Promise<void> {
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel();
    return;
  }
  res.statusMessage = response.statusText;
  res.status(response.status);
  for (const [name, value] of response.headers.entries()) res.append(name, value);
  if (!response.body) return void res.end();
  try {
    await writeReadableStreamToWritable(response.body, res);
  } catch (error) {
    if (!res.destroyed && !res.writableEnded) throw error;
  }
}

export type RequestHandlerOptions = {
  build: ServerBuild | (() => Promise<ServerBuild>);
  getLoadContext: (req: express.Request, res: express.Response) => AppLoadContext;
  publicUrl?: string;
};

export function createRequestHandler({ build, getLoadContext, publicUrl }: RequestHandlerOptions): express.RequestHandler {
  const handle = createReactRouterHandler(build, process.env.NODE_ENV);
  return async (req, res, next) => {
    try {
      const request = toFetchRequest(req, res, requestOrigin(req, publicUrl));
      const context = getLoadContext(req, res);
      // Code that sees only the Request (errorResponse in app/utils/api.server.ts) finds it with requestLogger().
      await withRequestLogger(context.logger, async () => send(res, await handle(request, context)));
    } catch (error) {
      if (error instanceof BadHostError) return void res.status(400).json({ message: error.message });
      next(error);
    }
  };
}
