/**
 * Abuse limits per client IP (express-rate-limit, fixed one-minute windows, counted in PostgreSQL so that
 * every web replica on one database shares one count: server/rate-limit-store.ts):
 * - sign-in: GET /api/auth/challenge and the changes of /api/auth/session, RATE_LIMIT_SIGNIN_PER_MIN (default 30);
 * - every other route that checks a signature (stake, unstake, bulk, giveaway entry, vote), RATE_LIMIT_SIGNED_PER_MIN
 *   (default 300);
 * - the email consent, POST /api/notifications/email, RATE_LIMIT_EMAIL_PER_MIN (default 5): each may queue a mail to
 *   a mailbox (its own counts per mailbox are in the database: db/queries/email-subscriptions.server.ts);
 * - anonymous starts of a Discord link, GET /discord/link, RATE_LIMIT_DISCORD_LINK_PER_MIN (default 10): each stores a row;
 * - item pictures, GET /content/{id} (each may cost a fetch from the ord server), RATE_LIMIT_CONTENT_PER_MIN (600);
 * - Discord's slash-command deliveries, POST /api/discord/interactions (from Discord's few addresses, whose
 *   signature the route checks), RATE_LIMIT_INTERACTIONS_PER_MIN (1200);
 * - the public log's files (/log/checkpoint, /log/key, /log/tile/…), RATE_LIMIT_LOG_PER_MIN (12,000: a `log verify`
 *   of 1,000,000 entries reads about 8,000 tiles, and honours 429's Retry-After beyond that), counted by each web
 *   process in its memory rather than in the database (a write per tile would cost more than the tile);
 * - everything else React Router answers (pages, their data, the public reads of /api), RATE_LIMIT_READS_PER_MIN
 *   (600), except the probes (/api/live, /api/ready, /api/health), which load balancers call.
 * A request counts against the route it reaches: its path as React Router serves it (server/served-path.ts),
 * so `/api/%73take` and `//x/api/stake` count as `/api/stake`.
 * Beyond a limit: 429 with Retry-After and `{ message }`, before the route runs (nothing changes). 0 turns
 * a limit off. The client IP is Express's `req.ip`: the socket's address, or X-Forwarded-For as far as
 * TRUST_PROXY trusts it.
 */
import type express from "express";
import { rateLimit, type AugmentedRequest } from "express-rate-limit";
import type { Config } from "../app/utils/env.server.ts";
import type { Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import { PostgresRateLimitStore } from "./rate-limit-store.ts";
import { routePathOf } from "./served-path.ts";

export const RATE_LIMIT_WINDOW_MS = 60_000;

export type LimitKind = "signIn" | "signed" | "email" | "discordLink" | "content" | "interactions" | "log" | "reads";

/** The probes load balancers and orchestrators call: never limited, answered whatever the Host (server/allowed-hosts.ts). */
const PROBE_PATH = /^\/api\/(?:live|ready|health)$/;

export const isProbe = (target: string): boolean => PROBE_PATH.test(routePathOf(target));

const ROUTES: { kind: LimitKind | null; methods: string[] | null; path: RegExp }[] = [
  { kind: "signIn", methods: null, path: /^\/api\/auth\/challenge$/ },
  { kind: "signIn", methods: ["POST", "DELETE", "PUT", "PATCH"], path: /^\/api\/auth\/session$/ },
  { kind: "signed", methods: null, path: /^\/api\/(?:stake|unstake)(?:\/bulk)?$/ },
  { kind: "signed", methods: null, path: /^\/api\/giveaways\/enter$/ },
  { kind: "signed", methods: null, path: /^\/api\/giveaways\/[^/]+\/claim$/ },
  { kind: "signed", methods: null, path: /^\/api\/proposals\/[^/]+\/vote$/ },
  { kind: "email", methods: ["POST"], path: /^\/api\/notifications\/email$/ },
  { kind: "discordLink", methods: null, path: /^\/discord\/link$/ },
  { kind: "signed", methods: null, path: /^\/api\/discord\/(?:link|account)$/ },
  { kind: "content", methods: null, path: /^\/content\/[^/]+$/ },
  { kind: "interactions", methods: null, path: /^\/api\/discord\/interactions$/ },
  { kind: null, methods: null, path: PROBE_PATH },
  // The public log's files (checkpoint, key, tiles): small indexed reads, full tiles immutable and cached by
  // any CDN; an auditor's `spooks-admin log verify` reads every tile (docs/transparency.md).
  { kind: "log", methods: ["GET", "HEAD"], path: /^\/log\/(?:previous\/\d+\/)?(?:checkpoint|key|tile\/.+)$/ },
];

/**
 * Which limit a request counts against, from its method and request target (`req.originalUrl`): the path
 * React Router serves, decoded and compared without case, a trailing slash or a `.data` suffix.
 */
export function limitOf(method: string, target: string): LimitKind | null {
  const path = routePathOf(target);
  const route = ROUTES.find((candidate) => candidate.path.test(path) && (!candidate.methods || candidate.methods.includes(method)));
  return route ? route.kind : "reads";
}

const DESCRIPTION: Record<LimitKind, string> = {
  signIn: "sign-in requests",
  signed: "signed requests",
  email: "email subscriptions",
  discordLink: "Discord link requests",
  content: "picture requests",
  interactions: "Discord interactions",
  log: "public-log requests",
  reads: "requests",
};

/** Whole seconds until the window's count resets, at least 1 (what Retry-After carries), or undefined when the store does not say. */
const secondsUntil = (resetTime: Date | undefined) =>
  resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : undefined;

type LimiterOptions = { sql: Sql; logger: Logger; windowMs: number };

function limiter(kind: LimitKind, limit: number, { sql, logger, windowMs }: LimiterOptions): express.RequestHandler {
  const seconds = Math.round(windowMs / 1000);
  return rateLimit({
    windowMs,
    limit,
    // The log's files are cached by browsers and CDNs (full tiles for good): a count of one client's requests has no
    // place on them, where a cache would show it to other clients (docs/decisions.md).
    standardHeaders: kind === "log" ? false : "draft-8",
    legacyHeaders: false,
    // Replicas configured alike share a count; one configured otherwise (mid-way through a change) counts apart.
    // The log's files are counted by each process in its memory: a write to the database per tile would cost
    // more than the tile, and a flood guard needs no shared count (N replicas allow N times the limit).
    store: kind === "log" ? undefined : new PostgresRateLimitStore(sql, `${kind}/${limit}/${windowMs}:`, logger),
    // X-Forwarded-For from an untrusted peer is ignored on purpose (TRUST_PROXY), not a mistake to report.
    validate: { xForwardedForHeader: false },
    handler: (req, res) => {
      res.setHeader("Cache-Control", "no-store");
      const retryAfter = String(res.getHeader("Retry-After") ?? secondsUntil((req as AugmentedRequest).rateLimit.resetTime) ?? seconds);
      res.setHeader("Retry-After", retryAfter);
      res.status(429).json({
        message: `Too many ${DESCRIPTION[kind]} from your address: at most ${limit} per ${seconds} s. Try again in ${retryAfter} s.`,
      });
    },
  });
}

export type RateLimitOptions = { sql: Sql; logger: Logger; windowMs?: number };

export function rateLimits(
  limits: Config["rateLimits"],
  { sql, logger, windowMs = RATE_LIMIT_WINDOW_MS }: RateLimitOptions,
): express.RequestHandler {
  const perMinute: Record<LimitKind, number> = {
    signIn: limits.signInPerMin,
    signed: limits.signedPerMin,
    email: limits.emailPerMin,
    discordLink: limits.discordLinkPerMin,
    content: limits.contentPerMin,
    interactions: limits.interactionsPerMin,
    log: limits.logPerMin,
    reads: limits.readsPerMin,
  };
  const limiters = Object.fromEntries(
    Object.entries(perMinute).map(([kind, limit]) => [
      kind,
      limit > 0 ? limiter(kind as LimitKind, limit, { sql, logger, windowMs }) : null,
    ]),
  ) as Record<LimitKind, express.RequestHandler | null>;
  return (req, res, next) => {
    const kind = limitOf(req.method, req.originalUrl);
    const limit = kind ? limiters[kind] : null;
    if (!limit) return next();
    return limit(req, res, next);
  };
}
