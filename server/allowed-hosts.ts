/**
 * Which names the site answers as (DNS rebinding, docs/security.md). A page on another site whose name the
 * attacker re-points at this server's address is same-origin with it in the browser, but its requests name
 * the attacker's host. So a request is served only when its host (`Host`, or a trusted proxy's
 * `X-Forwarded-Host`: Express's `req.hostname`) is, on any port:
 * - without PUBLIC_URL (demo and development): `localhost`, `127.0.0.1` or `[::1]`, so no other site can
 *   read the demo wallets' keys or act as the signed-in demo admin;
 * - with PUBLIC_URL: its host, and those loopback names (the operator's own curl, a health check on the box).
 * Any other host gets 421 Misdirected Request (JSON with a `message` under /api, a short text elsewhere); a
 * malformed one 400 (JSON). The probes (/api/live, /api/ready, /api/health) answer whatever the host: a load
 * balancer or an orchestrator calls them by address, and they hold nothing to steal.
 */
import type express from "express";
import { isProbe } from "./rate-limits.ts";
import { isWellFormedHost } from "./request-handler.ts";
import { routePathOf } from "./served-path.ts";

export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"] as const;

/** A host name as compared: lower case, without the root's trailing dot. */
const normalized = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "");

export function allowedHosts(publicUrl: string | undefined): Set<string> {
  const names = new Set<string>(LOOPBACK_HOSTS);
  if (publicUrl) names.add(normalized(new URL(publicUrl).hostname));
  return names;
}

function refusal(publicUrl: string | undefined): string {
  return publicUrl
    ? `This site answers only as ${new URL(publicUrl).hostname} (PUBLIC_URL)`
    : `This server answers only as ${LOOPBACK_HOSTS.join(", ")}: set PUBLIC_URL to the address it is reached at to serve it under another name`;
}

export function onlyAllowedHosts(publicUrl: string | undefined): express.RequestHandler {
  const allowed = allowedHosts(publicUrl);
  return (req, res, next) => {
    if (isProbe(req.originalUrl)) return next();
    const wellFormed = isWellFormedHost(req.host);
    if (wellFormed && allowed.has(normalized(req.hostname))) return next();
    res.setHeader("Cache-Control", "no-store");
    if (!wellFormed)
      return void res.status(400).json({ message: "The request's Host (or a trusted proxy's X-Forwarded-Host) is not a valid host" });
    const message = refusal(publicUrl);
    if (/^\/api(?:\/|$)/.test(routePathOf(req.originalUrl))) return void res.status(421).json({ message });
    res.status(421).type("text/plain").send(`${message}\n`);
  };
}
