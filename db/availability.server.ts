/**
 * Whether a failure means "the database cannot be reached right now" (down, restarting, refusing
 * connections, connection lost mid-query) rather than a fault in the request or the code. Such failures
 * are answered 503 with a message (app/utils/api.server.ts, the page loaders, /api/health); the pool
 * reconnects by itself once the server is back.
 */

/** Node's socket errors and porsager/postgres's own connection errors. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/**
 * SQLSTATEs of a server going away or not taking connections: class 08 (connection exception), 57P01-57P03
 * (admin or crash shutdown, cannot connect now: starting up or shutting down), 53300 (too many connections).
 */
const SERVER_STATES = /^(08...|57P0[123]|53300)$/;

export const DATABASE_UNAVAILABLE_MESSAGE = "The database is unavailable right now; try again in a few seconds";

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  // Connecting to a name with several addresses fails with all their errors at once.
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  if (CONNECTION_CODES.has(code)) return true;
  // A server's error carries a severity; only then is the code a SQLSTATE.
  return "severity" in error && SERVER_STATES.test(code);
}
