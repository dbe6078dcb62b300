/**
 * How long rows that only serve a while are kept before housekeeping removes them
 * (db/queries/housekeeping.server.ts, run by the indexer; docs/operations-growth.md).
 */
import { SIGNATURE_MAX_AGE_MS } from "./messages.ts";

/**
 * A signed message is accepted while its timestamp is within SIGNATURE_MAX_AGE_MS of the server's clock,
 * so one used at `used_at` carried a timestamp no later than used_at + the window and is refused by its
 * age from used_at + twice the window on. The record is kept an hour, which leaves replicas' clocks half
 * an hour of disagreement.
 */
export const USED_SIGNATURE_RETENTION_MS = Math.max(60 * 60 * 1000, 2 * SIGNATURE_MAX_AGE_MS);

/** Ownership passes are kept 30 days (the status pages read the last ones; older ones answer nothing). */
export const SYNC_RUN_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
