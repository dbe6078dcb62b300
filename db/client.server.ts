/**
 * The one database client factory. Both engines are reached through porsager's `postgres`:
 * - DATABASE_URL set: that server, pooled.
 * - not set: embedded Postgres (PGlite) in DATA_DIR, served over a loopback socket by pglite-socket.
 *   PGlite has a single backend, so this process uses one connection; other processes on the same
 *   DATA_DIR (the CLI beside `npm start`) attach to the running server's socket instead of opening the
 *   files twice.
 */
import postgres from "postgres";
import type { Warn } from "./data-dir.server.ts";

export type Sql = postgres.Sql<{ bigint: number }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: number }>;
/** Either the pool or a transaction: query functions take this so the caller picks the scope. */
export type Queryable = Sql | TransactionSql;

export type Database = {
  sql: Sql;
  engine: "postgres" | "pglite";
  /** Where it is, without credentials (for logs and /api/health). */
  description: string;
  /**
   * The embedded database's owner login (db/embedded.server.ts), in the process that opened its files:
   * migrations run as it, while `sql` acts as the runtime role. Unset on PostgreSQL and when attached.
   */
  migratorUrl?: string;
  close(): Promise<void>;
};

export class DatabaseConfigError extends Error {}

/** int8 as a JS number (ledger sums stay far below 2^53 units); numeric stays a string: cast in SQL. */
const BIGINT_AS_NUMBER = {
  to: 20,
  from: [20],
  serialize: (value: number | bigint) => String(value),
  parse: (value: string) => Number(value),
};

/**
 * Seconds a pool waits before connecting again after its `failures`-th failure in a row (PostgreSQL down or
 * restarting). postgres.js's own wait grows as 3^failures / 100 up to 20 s, counted across the pool: the dozen
 * failures of a restart under load left requests waiting 2-13 s after the server was back. A request's own
 * attempt is what reaches the server here, so the wait stays short: 50 ms more per failure, at most half a second.
 */
export const reconnectDelaySeconds = (failures: number) => Math.min(0.05 * failures, 0.5);

/** `settings`: PostgreSQL settings every connection of the pool starts with (startup parameters). */
export function createSql(url: string, options: { max?: number; settings?: Record<string, string | number> } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    backoff: reconnectDelaySeconds,
    onnotice: () => {},
    transform: postgres.camel,
    types: { bigint: BIGINT_AS_NUMBER },
    connection: { application_name: "spooks", ...options.settings },
  });
}

/**
 * The longest a statement of a web request may run on PostgreSQL (issue 32, item 2): a request's transaction never
 * holds a pool connection and its locks for longer per statement. Migrations and the indexer, whose statements
 * may legitimately be long on a large database, use the process's main pool, without it.
 */
export const REQUEST_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * The pool the web server answers requests with: on PostgreSQL its own, whose connections cancel a statement
 * after `statementTimeoutMs` (57014; the connection goes on). Not `idle_in_transaction_session_timeout`: the
 * server ends such a session by closing its connection, and postgres.js 3.4.9 then crashes its process (a write
 * on the closed socket from a timer) or runs the dead transaction's next statements outside it
 * (porsager/postgres#1208, #1216); no request transaction calls out of the process (docs/decisions.md). On the
 * embedded database the main pool: PGlite cannot interrupt a statement, and its socket rolls back a transaction
 * idle too long itself (./pglite-socket.server.ts).
 */
export function openRequestSql(
  db: Pick<Database, "sql" | "engine">,
  databaseUrl: string | undefined,
  statementTimeoutMs = REQUEST_STATEMENT_TIMEOUT_MS,
): { sql: Sql; close(): Promise<void> } {
  if (db.engine !== "postgres" || !databaseUrl) return { sql: db.sql, close: async () => {} };
  const sql = createSql(databaseUrl, { settings: { statement_timeout: statementTimeoutMs } });
  return { sql, close: () => sql.end({ timeout: 5 }) };
}

export function describeUrl(url: string, name = "DATABASE_URL"): string {
  const parsed = parseDatabaseUrl(url, name);
  return `${parsed.hostname || "localhost"}:${parsed.port || 5432}${parsed.pathname}`;
}

export function parseDatabaseUrl(url: string, name = "DATABASE_URL"): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseConfigError(`${name} is not a valid URL (expected postgres://user:pass@host:port/db)`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new DatabaseConfigError(`${name} must start with postgres:// (got ${parsed.protocol}//)`);
  }
  return parsed;
}

export async function checkReachable(sql: Sql, description: string): Promise<void> {
  try {
    await sql`select 1`;
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new DatabaseConfigError(`Cannot reach the database at ${description}: ${reason}`);
  }
}

export type OpenOptions = {
  databaseUrl?: string;
  dataDir: string;
  max?: number;
  /** Told when the embedded database's DATA_DIR was open to other accounts (it is made owner-only). */
  warn?: Warn;
};

export async function openDatabase({ databaseUrl, dataDir, max, warn }: OpenOptions): Promise<Database> {
  if (databaseUrl) {
    const description = describeUrl(databaseUrl);
    const sql = createSql(databaseUrl, { max });
    await checkReachable(sql, description);
    return { sql, engine: "postgres", description, close: () => sql.end({ timeout: 5 }) };
  }
  // PGlite (several MB of JavaScript and WebAssembly) is loaded only by a process that uses it.
  const { openEmbedded } = await import("./embedded.server.ts");
  const embedded = await openEmbedded(dataDir, warn);
  const sql = createSql(embedded.url, { max: 1 });
  await checkReachable(sql, embedded.description);
  return {
    sql,
    engine: "pglite",
    description: embedded.description,
    migratorUrl: embedded.migratorUrl,
    close: async () => {
      await sql.end({ timeout: 5 });
      await embedded.close();
    },
  };
}
