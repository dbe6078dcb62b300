/**
 * Forwards-only migrations: numbered `.sql` files in db/migrations, applied in file order, all pending
 * ones in one transaction behind an advisory lock, each recorded in schema_migrations. A failure rolls
 * the whole run back, so a half-applied migration is never left behind.
 */
import fs from "node:fs";
import path from "node:path";
import { now } from "../app/domain/clock.ts";
import { projectRoot } from "../app/utils/project-root.server.ts";
import type { Queryable, Sql } from "./client.server.ts";

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
  await tx`create table if not exists schema_migrations (
    version text primary key,
    applied_at timestamptz not null
  )`;
  const rows = await tx<{ version: string }[]>`select version from schema_migrations`;
  return new Set(rows.map((row) => row.version));
}

/** Applies pending migrations; returns the versions applied (none on a second run). */
export async function migrate(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    const applied = await appliedVersions(tx);
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      try {
        await tx.unsafe(migration.sql);
      } catch (error) {
        throw new MigrationError(`Migration ${migration.version} failed: ${(error as Error).message}`);
      }
      await tx`insert into schema_migrations (version, applied_at) values (${migration.version}, ${now()})`;
    }
    return pending.map((migration) => migration.version);
  });
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
