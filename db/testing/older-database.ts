/**
 * A database of the engine the suite runs on (`inject("testDatabase")`), as its owner, empty or migrated up to a
 * version and not past it: a new database on the PostgreSQL server, or a new in-memory PGlite served over a
 * socket. For tests of the migrations themselves, and tests that write what an older release left, then migrate
 * the rest.
 */
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { createSql, type Sql } from "../client.server.ts";
import { migrate, readMigrations } from "../migrate.server.ts";
import { serveOverSocket } from "../pglite-socket.server.ts";
import { freshPGlite } from "./fresh-pglite.ts";

export type OlderDatabase = { sql: Sql; migrateTheRest: () => Promise<void>; close: () => Promise<void> };

/** Migrated up to `version` (the migrations before it); `label` names the PostgreSQL database. */
export async function databaseBefore(label: string, version: string, { max = 1 } = {}): Promise<OlderDatabase> {
  const db = await emptyDatabase(label);
  const sql = createSql(db.url, { max });
  const close = async () => {
    await sql.end({ timeout: 5 });
    await db.close();
  };
  const migrations = readMigrations();
  try {
    await migrate(
      sql,
      migrations.filter((migration) => migration.version < version),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { sql, close, migrateTheRest: async () => void (await migrate(sql, migrations)) };
}

/** Empty: no migration has run. `label` names the PostgreSQL database. */
export async function emptyDatabase(label: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = inject("testDatabase");
  if (target.kind === "postgres") {
    const name = `spooks_${label}_${process.pid}_${randomBytes(4).toString("hex")}`;
    const admin = createSql(target.adminUrl, { max: 1 });
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(target.adminUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      close: async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      },
    };
  }
  const db = await freshPGlite();
  const socket = await serveOverSocket(db);
  return {
    url: socket.url,
    close: async () => {
      await socket.stop();
      await db.close();
    },
  };
}
