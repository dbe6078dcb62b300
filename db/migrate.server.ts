/**
 * Forwards-only migrations: numbered `.sql` files in db/migrations, applied in file order, all pending
 * ones in one transaction behind an advisory lock, each recorded in schema_migrations. A failure rolls
 * the whole run back, so a half-applied migration is never left behind. They run as the owner role
 * (`migrateAsOwner`: MIGRATE_DATABASE_URL, the embedded database's own superuser, else DATABASE_URL);
 * a role that may not change the schema can still run `migrate` when nothing is pending.
 */
import fs from "node:fs";
import path from "node:path";
import { now } from "../app/domain/clock.ts";
import { projectRoot } from "../app/utils/project-root.server.ts";
import { checkReachable, createSql, describeUrl, type Database, type Queryable, type Sql } from "./client.server.ts";
import { grantRuntimeRole } from "./roles.server.ts";

export const MIGRATIONS_DIR = path.join(projectRoot(import.meta.dirname), "db", "migrations");
const MIGRATION_LOCK = 727_001;

export class MigrationError extends Error {}

export type Migration = { version: string; sql: string };

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: file.replace(/\.sql$/, ""), sql: fs.readFileSync(path.join(dir, file), "utf8") }));
}

async function appliedVersions(tx: Queryable): Promise<Set<string>> {
  // Created only when missing: `create table if not exists` would need CREATE on the schema even then.
  const [{ exists }] = await tx<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`;
  if (!exists) {
    await tx`create table schema_migrations (
      version text primary key,
      applied_at timestamptz not null
    )`;
  }
  const rows = await tx<{ version: string }[]>`select version from schema_migrations`;
  return new Set(rows.map((row) => row.version));
}

/**
 * The public log builds its entries' bytes as UTF-8 in the database (migration 0040): a database of another
 * encoding (SQL_ASCII, LATIN1…) is refused before anything is applied, naming what to do, rather than failing
 * halfway through the migrations in PostgreSQL's words.
 */
async function checkEncoding(tx: Queryable): Promise<void> {
  const [{ encoding, name }] = await tx<{ encoding: string; name: string }[]>`
    select pg_encoding_to_char(encoding) as encoding, datname as name from pg_database where datname = current_database()`;
  if (encoding !== "UTF8") {
    throw new MigrationError(
      `The database "${name}" is encoded ${encoding}; Spooks needs a UTF8 database ` +
        `(create it with: create database ${name} encoding 'UTF8' template template0)`,
    );
  }
}

/** Applies pending migrations; returns the versions applied (none on a second run). */
export async function migrate(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await checkEncoding(tx);
    const applied = await appliedVersions(tx);
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      try {
        await tx.unsafe(migration.sql);
      } catch (error) {
        const refused = (error as { code?: string }).code === "42501";
        const hint = refused ? " (this role may not change the schema: set MIGRATE_DATABASE_URL to the owner role)" : "";
        throw new MigrationError(`Migration ${migration.version} failed: ${(error as Error).message}${hint}`);
      }
      await tx`insert into schema_migrations (version, applied_at) values (${migration.version}, ${now()})`;
    }
    return pending.map((migration) => migration.version);
  });
}

/**
 * Applies pending migrations as the owner role: MIGRATE_DATABASE_URL when given, else the embedded
 * database's migrator, else the app's own connection (DATABASE_URL). A separate owner then makes the
 * app's role a member of the runtime role. Returns the versions applied.
 */
export async function migrateAsOwner(db: Database, migrateDatabaseUrl?: string): Promise<string[]> {
  const ownerUrl = migrateDatabaseUrl ?? db.migratorUrl;
  if (!ownerUrl) return migrate(db.sql);
  if (db.engine === "pglite" && (await upToDate(db.sql))) return [];
  const owner = createSql(ownerUrl, { max: 1 });
  if (migrateDatabaseUrl) await checkReachable(owner, `${describeUrl(migrateDatabaseUrl, "MIGRATE_DATABASE_URL")} (MIGRATE_DATABASE_URL)`);
  try {
    const applied = await migrate(owner);
    if (db.engine === "postgres") {
      const [[app], [migrator]] = await Promise.all([db.sql`select session_user as name`, owner`select session_user as name`]);
      if (app.name !== migrator.name) await grantRuntimeRole(owner, String(app.name));
    }
    return applied;
  } finally {
    await owner.end({ timeout: 5 });
  }
}

/**
 * Whether the app's own connection sees every migration applied: then, on the embedded database (whose runtime
 * role its socket prepares itself), the owner's connection, a second login, is not opened; a command of the CLI
 * answers 30 ms sooner. Migrations are only ever added, so nothing can become pending meanwhile. A database
 * whose schema_migrations cannot be read (a new one) is not up to date.
 */
async function upToDate(sql: Queryable): Promise<boolean> {
  try {
    return (await pendingMigrations(sql)).length === 0;
  } catch {
    return false;
  }
}

let knownVersions: string[] | undefined;

/**
 * The migrations this code knows (its db/migrations folder, read once) that the database has not applied:
 * a server is ready only when none is pending. Versions the database has beyond these (a newer release's,
 * during an upgrade) do not count. Throws when the database cannot be read.
 */
export async function pendingMigrations(sql: Queryable): Promise<string[]> {
  knownVersions ??= readMigrations().map((migration) => migration.version);
  const rows = await sql<{ version: string }[]>`select version from schema_migrations`;
  const applied = new Set(rows.map((row) => row.version));
  return knownVersions.filter((version) => !applied.has(version));
}
