/**
 * Abuse limits per client IP (express-rate-limit, fixed one-minute windows, in this process's memory):
 * - sign-in: GET /api/auth/challenge and POST /api/auth/session, RATE_LIMIT_SIGNIN_PER_MIN (default 30);
 * - every other route that checks a signature (stake, unstake, bulk, giveaway entry, vote),
 *   RATE_LIMIT_SIGNED_PER_MIN (default 300).
 * Beyond a limit: 429 with Retry-After and `{ message }`, before the route runs (nothing changes). 0 turns
 * a limit off. The client IP is Express's `req.ip`: the socket's address, or X-Forwarded-For as far as
 * TRUST_PROXY trusts it. Each web replica counts on its own (docs/security.md says why).
 */
import type express from "express";
import { rateLimit } from "express-rate-limit";
import type { Config } from "../app/utils/env.server.ts";

export const RATE_LIMIT_WINDOW_MS = 60_000;

type Kind = "signIn" | "signed";

const ROUTES: { kind: Kind; methods: string[] | null; path: RegExp }[] = [
  { kind: "signIn", methods: null, path: /^\/api\/auth\/challenge$/ },
  { kind: "signIn", methods: ["POST", "DELETE", "PUT", "PATCH"], path: /^\/api\/auth\/session$/ },
  { kind: "signed", methods: null, path: /^\/api\/(?:stake|unstake)(?:\/bulk)?$/ },
  { kind: "signed", methods: null, path: /^\/api\/giveaways\/enter$/ },
  { kind: "signed", methods: null, path: /^\/api\/proposals\/[^/]+\/vote$/ },
];

/** Which limit a request counts against. Paths as React Router matches them: any case, a trailing
 * slash or a `.data` suffix (its data requests) name the same route. */
export function limitOf(method: string, path: string): Kind | null {
  const normalized = path
    .toLowerCase()
    .replace(/\.data$/, "")
    .replace(/\/+$/, "");
  const route = ROUTES.find((candidate) => candidate.path.test(normalized) && (!candidate.methods || candidate.methods.includes(method)));
  return route?.kind ?? null;
}

const DESCRIPTION: Record<Kind, string> = { signIn: "sign-in requests", signed: "signed requests" };

function limiter(kind: Kind, limit: number, windowMs: number): express.RequestHandler {
  const seconds = Math.round(windowMs / 1000);
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    // X-Forwarded-For from an untrusted peer is ignored on purpose (TRUST_PROXY), not a mistake to report.
    validate: { xForwardedForHeader: false },
    handler: (_req, res) => {
      res.setHeader("Cache-Control", "no-store");
      const retryAfter = String(res.getHeader("Retry-After") ?? seconds);
      res.status(429).json({
        message: `Too many ${DESCRIPTION[kind]} from your address: at most ${limit} per ${seconds} s. Try again in ${retryAfter} s.`,
      });
    },
  });
}

export function rateLimits(limits: Config["rateLimits"], windowMs: number = RATE_LIMIT_WINDOW_MS): express.RequestHandler {
  const limiters: Record<Kind, express.RequestHandler | null> = {
    signIn: limits.signInPerMin > 0 ? limiter("signIn", limits.signInPerMin, windowMs) : null,
    signed: limits.signedPerMin > 0 ? limiter("signed", limits.signedPerMin, windowMs) : null,
  };
  return (req, res, next) => {
    const kind = limitOf(req.method, req.path);
    const limit = kind ? limiters[kind] : null;
    if (!limit) return next();
    return limit(req, res, next);
  };
}
