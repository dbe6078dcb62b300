/**
 * Security headers on every response (pages, /api answers, uploads, assets), mostly through helmet.
 * docs/security.md gives each one's reason. In short:
 * - Content-Security-Policy: scripts only from this origin or inline with this request's nonce (React
 *   Router's and React's inline scripts carry it, app/entry.server.tsx); images from this origin, data:
 *   placeholders, the item image hosts (ITEM_IMAGE_URLS, app/domain/image-hosts.ts) and IMAGE_HOSTS; no plugins,
 *   no <base> elsewhere, no framing, forms post only here;
 * - nosniff, Referrer-Policy strict-origin-when-cross-origin, X-Frame-Options DENY (old browsers);
 * - Strict-Transport-Security when the site is served over https (PUBLIC_URL, or TLS at a trusted proxy).
 * The API reference (/api/docs, Swagger UI) is a page of its own with a narrower policy: its own files
 * only, no inline script at all, nothing from elsewhere.
 */
import type express from "express";
import helmet from "helmet";
import { randomBytes } from "node:crypto";
import { itemImageOrigins } from "../app/domain/image-hosts.ts";
import type { Config } from "../app/utils/env.server.ts";
import { BadHostError, requestOrigin } from "./request-handler.ts";

/** A year: browsers remember to use https for that long after one https answer. */
export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export type SecurityOptions = { config: Pick<Config, "publicUrl" | "imageHosts" | "itemImageUrls">; dev?: boolean };

function isHttps(req: express.Request, publicUrl: string | undefined): boolean {
  try {
    return requestOrigin(req, publicUrl).startsWith("https:");
  } catch (error) {
    if (error instanceof BadHostError) return false;
    throw error;
  }
}

/** /api/docs and its files (app/routes/api/docs.server.ts), as React Router matches them: any case, a trailing slash. */
export function isApiDocsPath(path: string): boolean {
  return /^\/api\/docs(?:\/[^/]*)?\/?$/i.test(path);
}

/**
 * The API reference: Swagger UI's script and the page's initializer from this site (no inline script, no
 * nonce needed), its style attributes, the stylesheet's data: icons, and calls to this site only (the
 * document, and "Try it out").
 */
const API_DOCS_DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

export function securityHeaders({ config, dev = false }: SecurityOptions): express.RequestHandler[] {
  const nonce: express.RequestHandler = (_req, res, next) => {
    res.locals.cspNonce = randomBytes(18).toString("base64");
    next();
  };
  const upgradeInsecureRequests = config.publicUrl?.startsWith("https:") ? [] : null;
  const common = {
    // Sent below, and only when the site is https: over plain http browsers ignore it anyway.
    strictTransportSecurity: false,
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    xFrameOptions: { action: "deny" },
  } as const;
  const docsHeaders = helmet({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: { ...API_DOCS_DIRECTIVES, upgradeInsecureRequests } },
  });
  const siteHeaders = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`],
        // React and Radix set style attributes; inline styles cannot run code, scripts stay strict.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", ...itemImageOrigins(config.itemImageUrls), ...config.imageHosts],
        fontSrc: ["'self'", "data:"],
        // Development only: vite's hot-reload socket.
        connectSrc: dev ? ["'self'", "ws:", "wss:"] : ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests,
      },
    },
  });
  const headers: express.RequestHandler = (req, res, next) => (isApiDocsPath(req.path) ? docsHeaders : siteHeaders)(req, res, next);
  const hsts: express.RequestHandler = (req, res, next) => {
    if (isHttps(req, config.publicUrl)) res.setHeader("Strict-Transport-Security", `max-age=${HSTS_MAX_AGE_SECONDS}`);
    next();
  };
  return [nonce, headers, hsts];
}
