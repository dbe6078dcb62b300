/**
 * Test databases on three engines (see tests/setup/global-setup.ts). A test file calls
 * `createTestDatabase()` in beforeAll and `close()` in afterAll; it gets its own migrated database.
 * `sql` and `url` act as the runtime role, as the app does in production (on PostgreSQL the login
 * TEST_RUNTIME_USER, a member of spooks_runtime; on PGlite the embedded socket's runtime login), so a
 * missing grant fails the suite; `owner` is the role migrations ran as, for tests that change the schema.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { inject } from "vitest";
import { createSql, type Database, type Queryable, type Sql } from "../../db/client.server.ts";
import { migrate, readMigrations } from "../../db/migrate.server.ts";
import { newPassword, serveOverSocket } from "../../db/pglite-socket.server.ts";
import { grantRuntimeRole } from "../../db/roles.server.ts";
import { freshPGlite, initdbFolder, savedFolder } from "../../db/testing/fresh-pglite.ts";

export type TestDatabaseTarget =
  { kind: "postgres"; adminUrl: string; runtimeUrl: string; template: string } | { kind: "pglite"; dumpFile: string };

/** The test cluster's runtime login (roles are cluster-wide: one for every test database). */
export const TEST_RUNTIME_USER = "spooks_test_runtime";

function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const migration of readMigrations()) hash.update(migration.version).update(migration.sql);
  return hash.digest("hex").slice(0, 12);
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function asUser(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = user; // the test cluster's own throwaway login
  return parsed.toString();
}

/** The runtime login, made once per cluster; parallel runs may race to create it (either wins). */
async function ensureRuntimeLogin(admin: Queryable): Promise<void> {
  await admin.unsafe(`do $$ begin
    create role ${TEST_RUNTIME_USER} login password '${TEST_RUNTIME_USER}';
  exception when duplicate_object or unique_violation then null;
  end $$`);
  await grantRuntimeRole(admin, TEST_RUNTIME_USER);
}

function dockerAnswers(): boolean {
  try {
    execFileSync("docker", ["info"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

async function preparePostgresTemplate(adminUrl: string): Promise<TestDatabaseTarget> {
  const template = `spooks_tpl_${migrationsHash()}`;
  const admin = createSql(adminUrl, { max: 1 });
  try {
    // Parallel runs (two vitest processes) must not build the same template at once.
    await admin`select pg_advisory_lock(727002)`;
    const [exists] = await admin`select 1 from pg_database where datname = ${template}`;
    if (!exists) {
      await admin.unsafe(`create database "${template}_new"`);
      const sql = createSql(withDatabase(adminUrl, `${template}_new`), { max: 1 });
      await migrate(sql);
      await sql.end();
      await admin.unsafe(`alter database "${template}_new" rename to "${template}"`);
    }
    await ensureRuntimeLogin(admin);
  } finally {
    await admin`select pg_advisory_unlock(727002)`.catch(() => {});
    await admin.end();
  }
  return { kind: "postgres", adminUrl, runtimeUrl: asUser(adminUrl, TEST_RUNTIME_USER), template };
}

/** The migrated database's saved folder (db/testing/fresh-pglite.ts), named by the migrations and the folder below. */
async function preparePgliteDump(): Promise<TestDatabaseTarget> {
  const initdb = await initdbFolder();
  const name = `pglite-${migrationsHash()}-on-${path.basename(initdb, ".tar")}`;
  const dumpFile = await savedFolder(
    name,
    async (db) => {
      const server = await serveOverSocket(db);
      const sql = createSql(server.url, { max: 1 });
      await migrate(sql);
      await sql.end();
      await server.stop();
    },
    initdb,
  );
  return { kind: "pglite", dumpFile };
}

export async function prepareTemplate(): Promise<{ target: TestDatabaseTarget; teardown: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    return { target: await preparePostgresTemplate(process.env.TEST_DATABASE_URL), teardown: async () => {} };
  }
  if (dockerAnswers()) {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
    const container = await new PostgreSqlContainer("postgres:16-alpine").start();
    const target = await preparePostgresTemplate(container.getConnectionUri());
    return { target, teardown: async () => void (await container.stop()) };
  }
  return { target: await preparePgliteDump(), teardown: async () => {} };
}

export type TestDatabase = Database & { url: string; owner: { sql: Sql; url: string } };

async function createFromTemplate(target: Extract<TestDatabaseTarget, { kind: "postgres" }>): Promise<TestDatabase> {
  const name = `spooks_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = createSql(target.adminUrl, { max: 1 });
  await admin.unsafe(`create database "${name}" template "${target.template}"`);
  // A database's own privileges are not copied from its template: as migration 0016 left them.
  await admin.unsafe(`revoke temporary on database "${name}" from public`);
  const url = withDatabase(target.runtimeUrl, name);
  const ownerUrl = withDatabase(target.adminUrl, name);
  const sql = createSql(url, { max: 10 });
  const owner = createSql(ownerUrl, { max: 2 });
  return {
    sql,
    url,
    owner: { sql: owner, url: ownerUrl },
    engine: "postgres",
    description: name,
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), owner.end({ timeout: 5 })]);
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

async function createFromDump(target: Extract<TestDatabaseTarget, { kind: "pglite" }>): Promise<TestDatabase> {
  const db = await freshPGlite({}, target.dumpFile);
  const server = await serveOverSocket(db, { runtimePassword: newPassword() });
  const url = server.runtime!.url;
  const sql = createSql(url, { max: 1 });
  const owner = createSql(server.url, { max: 1 });
  return {
    sql,
    url,
    owner: { sql: owner, url: server.url },
    engine: "pglite",
    description: url,
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), owner.end({ timeout: 5 })]);
      await server.stop();
      await db.close();
    },
  };
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const target = inject("testDatabase");
  return target.kind === "postgres" ? await createFromTemplate(target) : await createFromDump(target);
}
