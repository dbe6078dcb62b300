/**
 * Discord's rate limits as the double applies them (REAL-WORLD.md "Discord", "Rate limits"): fixed windows per
 * bucket, per caller (the token) and per top-level resource (the "major parameter": a guild id, a webhook),
 * beside a global limit per caller (50 requests a second for a bot). Every answer of a limited route carries
 * the X-RateLimit-* headers; a refused request gets what `refusalHeaders` and `refusalBody` describe.
 */
import { createHash } from "node:crypto";

export const BUCKETS = [
  "oauth2-token",
  "oauth2-revoke",
  "users-me",
  "guild-roles",
  "guild-member",
  "guild-members",
  "member-roles",
  "webhook",
  "guild-commands",
  "interaction-webhook",
] as const;
export type Bucket = (typeof BUCKETS)[number];
export type BucketLimit = { limit: number; windowMs: number };
export type RateLimitScope = "user" | "global" | "shared";

/**
 * The double's default windows. Discord does not publish its per-route limits (clients must read the headers);
 * these are of the size seen in practice (e.g. 10 role changes per 10 s per guild, 5 webhook posts per 2 s).
 */
export const DEFAULT_BUCKET_LIMITS: Record<Bucket, BucketLimit> = {
  "oauth2-token": { limit: 20, windowMs: 10_000 },
  "oauth2-revoke": { limit: 20, windowMs: 10_000 },
  "users-me": { limit: 5, windowMs: 5_000 },
  "guild-roles": { limit: 10, windowMs: 10_000 },
  "guild-member": { limit: 5, windowMs: 1_000 },
  "guild-members": { limit: 10, windowMs: 10_000 },
  "member-roles": { limit: 10, windowMs: 10_000 },
  webhook: { limit: 5, windowMs: 2_000 },
  "guild-commands": { limit: 10, windowMs: 20_000 },
  "interaction-webhook": { limit: 5, windowMs: 2_000 },
};
export const DEFAULT_GLOBAL_PER_SECOND = 50;

/** The opaque hash Discord sends in X-RateLimit-Bucket: one per bucket, the same for every major parameter. */
export const bucketHash = (bucket: Bucket) => createHash("sha256").update(`spooks-discord-double:${bucket}`).digest("hex").slice(0, 32);

type Window = { count: number; resetAt: number };

export type Refusal = { retryAfterS: number; scope: RateLimitScope; global: boolean };
export type RateCheck = { headers: Record<string, string>; refusal?: Refusal };

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export function createRateLimiter(options: { limits?: Partial<Record<Bucket, BucketLimit>>; globalPerSecond?: number }) {
  const limits: Record<Bucket, BucketLimit> = { ...DEFAULT_BUCKET_LIMITS, ...options.limits };
  let globalPerSecond = options.globalPerSecond ?? DEFAULT_GLOBAL_PER_SECOND;
  const windows = new Map<string, Window>();
  const globalWindows = new Map<string, Window>();

  function current(map: Map<string, Window>, key: string, windowMs: number, now: number): Window {
    let window = map.get(key);
    if (!window || now >= window.resetAt) {
      window = { count: 0, resetAt: now + windowMs };
      map.set(key, window);
    }
    return window;
  }

  function headersOf(bucket: Bucket, window: Window, now: number): Record<string, string> {
    const { limit } = limits[bucket];
    return {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(Math.max(0, limit - window.count)),
      "x-ratelimit-reset": seconds(window.resetAt),
      "x-ratelimit-reset-after": seconds(Math.max(0, window.resetAt - now)),
      "x-ratelimit-bucket": bucketHash(bucket),
    };
  }

  return {
    /**
     * Counts one request of `caller` to `bucket` on resource `major`, or refuses it: the global limit first
     * (when the caller is a token), then the bucket's window. A refused request consumes nothing.
     */
    take(bucket: Bucket, caller: string, major: string, { global }: { global: boolean }): RateCheck {
      const now = Date.now();
      const window = current(windows, `${bucket}\u0000${caller}\u0000${major}`, limits[bucket].windowMs, now);
      const globalWindow = global ? current(globalWindows, caller, 1000, now) : undefined;
      if (globalWindow && globalWindow.count >= globalPerSecond) {
        return {
          headers: headersOf(bucket, window, now),
          refusal: { retryAfterS: (globalWindow.resetAt - now) / 1000, scope: "global", global: true },
        };
      }
      if (window.count >= limits[bucket].limit) {
        return {
          headers: headersOf(bucket, window, now),
          refusal: { retryAfterS: (window.resetAt - now) / 1000, scope: "user", global: false },
        };
      }
      window.count += 1;
      if (globalWindow) globalWindow.count += 1;
      return { headers: headersOf(bucket, window, now) };
    },
    /** The headers of the bucket's window as they stand, consuming nothing (for answers forced by a test). */
    peek(bucket: Bucket, caller: string, major: string): Record<string, string> {
      const now = Date.now();
      return headersOf(bucket, current(windows, `${bucket}\u0000${caller}\u0000${major}`, limits[bucket].windowMs, now), now);
    },
    setLimit(bucket: Bucket, limit: BucketLimit) {
      limits[bucket] = limit;
    },
    setGlobalPerSecond(perSecond: number) {
      globalPerSecond = perSecond;
    },
    reset() {
      windows.clear();
      globalWindows.clear();
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** A 429's own headers: Retry-After in whole seconds (rounded up), the scope, and X-RateLimit-Global only when global. */
export function refusalHeaders(refusal: Refusal): Record<string, string> {
  const headers: Record<string, string> = {
    "retry-after": String(Math.max(1, Math.ceil(refusal.retryAfterS))),
    "x-ratelimit-scope": refusal.scope,
  };
  if (refusal.global) headers["x-ratelimit-global"] = "true";
  return headers;
}

export function refusalBody(refusal: Refusal) {
  return {
    message: refusal.scope === "shared" ? "The resource is being rate limited." : "You are being rate limited.",
    retry_after: Math.round(refusal.retryAfterS * 1000) / 1000,
    global: refusal.global,
  };
}
