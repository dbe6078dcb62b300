/**
 * express-rate-limit's store in PostgreSQL (db/queries/rate-limits.server.ts), so every web replica on one
 * database counts against one limit. When the database cannot count, the request goes through (logged):
 * the routes behind a limit need that database anyway, and answer 503 on their own when it is down.
 */
import type { ClientRateLimitInfo, Options, Store } from "express-rate-limit";
import type { Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import { inBatches } from "../db/queries/housekeeping.server.ts";
import { countHit, deleteEndedWindows, forgetKey, uncountHit } from "../db/queries/rate-limits.server.ts";

/** Ended windows are looked for at most this often per database and process. */
export const CLEAN_UP_EVERY_MS = 1000;
/** Rows one clean-up statement deletes at most. */
export const CLEAN_UP_BATCH = 1000;

/** One clean-up at a time per database, shared by every limit on it (they share one table). */
type CleanUp = { running: boolean; lastAt: number };
const cleanUps = new WeakMap<Sql, CleanUp>();

export class PostgresRateLimitStore implements Store {
  private windowMs = 60_000;

  constructor(
    private readonly sql: Sql,
    readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    this.cleanUpNowAndThen();
    try {
      const { hits, resetsAt } = await countHit(this.sql, this.prefix + key, this.windowMs);
      return { totalHits: hits, resetTime: resetsAt };
    } catch (error) {
      this.logger.warn({ msg: "rate limit not counted: the database did not answer", limit: this.prefix, err: error });
      return { totalHits: 0, resetTime: new Date(Date.now() + this.windowMs) };
    }
  }

  async decrement(key: string): Promise<void> {
    await uncountHit(this.sql, this.prefix + key).catch(() => {});
  }

  async resetKey(key: string): Promise<void> {
    await forgetKey(this.sql, this.prefix + key);
  }

  /**
   * Every ended window is deleted as rows come in, off the request's path: at most once a second (or a
   * window, when shorter), one clean-up at a time, each in statements of at most CLEAN_UP_BATCH rows until
   * none is left. So a flood of new addresses (each a new row) is deleted as fast as it is created once its
   * window ends, and the table holds about one window of addresses, never an ever-growing pile.
   */
  private cleanUpNowAndThen(): void {
    let state = cleanUps.get(this.sql);
    if (!state) cleanUps.set(this.sql, (state = { running: false, lastAt: 0 }));
    if (state.running || Date.now() - state.lastAt < Math.min(this.windowMs, CLEAN_UP_EVERY_MS)) return;
    const cleanUp = state;
    cleanUp.running = true;
    inBatches((limit) => deleteEndedWindows(this.sql, limit), CLEAN_UP_BATCH)
      .catch((error: unknown) => this.logger.warn({ msg: "rate limit clean-up failed", err: error }))
      .finally(() => {
        cleanUp.running = false;
        cleanUp.lastAt = Date.now();
      });
  }
}
