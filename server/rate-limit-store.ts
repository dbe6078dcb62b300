/**
 * express-rate-limit's store in PostgreSQL (db/queries/rate-limits.server.ts), so every web replica on one
 * database counts against one limit. When the database cannot count, the request goes through (logged):
 * the routes behind a limit need that database anyway, and answer 503 on their own when it is down.
 */
import type { ClientRateLimitInfo, Options, Store } from "express-rate-limit";
import type { Logger } from "../app/utils/logger.server.ts";
import type { Sql } from "../db/client.server.ts";
import { countHit, deleteEndedWindows, forgetKey, uncountHit } from "../db/queries/rate-limits.server.ts";

export class PostgresRateLimitStore implements Store {
  private windowMs = 60_000;
  private lastCleanUp = Date.now();

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

  /** Ended windows are deleted at most once a window per process, in a bounded batch, off the request's path. */
  private cleanUpNowAndThen(): void {
    if (Date.now() - this.lastCleanUp < this.windowMs) return;
    this.lastCleanUp = Date.now();
    deleteEndedWindows(this.sql).catch((error: unknown) => this.logger.warn({ msg: "rate limit clean-up failed", err: error }));
  }
}
