/**
 * Test databases on three engines (see tests/setup/global-setup.ts). A test file calls
 * `createTestDatabase()` in beforeAll and `close()` in afterAll; it gets its own migrated database.
 */
import { PGlite } from "@electric-sql/pglite";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { createSql, type Database } from "../../db/client.server.ts";
import { migrate, readMigrations } from "../../db/migrate.server.ts";
import { serveOverSocket } from "../../db/pglite-socket.server.ts";

export type TestDatabaseTarget = { kind: "postgres"; adminUrl: string; template: string } | { kind: "pglite"; dumpFile: string };

const ROOT = path.resolve(import.meta.dirname, "../..");

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
  } finally {
    await admin`select pg_advisory_unlock(727002)`.catch(() => {});
    await admin.end();
  }
  return { kind: "postgres", adminUrl, template };
}

async function preparePgliteDump(): Promise<TestDatabaseTarget> {
  const dir = path.join(ROOT, ".test-data");
  fs.mkdirSync(dir, { recursive: true });
  const dumpFile = path.join(dir, `pglite-${migrationsHash()}.tar.gz`);
  if (!fs.existsSync(dumpFile)) {
    const db = await PGlite.create();
    const server = await serveOverSocket(db);
    const sql = createSql(server.url, { max: 1 });
    await migrate(sql);
    await sql.end();
    await server.stop();
    const dump = await db.dumpDataDir("gzip");
    await db.close();
    fs.writeFileSync(`${dumpFile}.tmp`, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(`${dumpFile}.tmp`, dumpFile);
  }
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

async function createFromTemplate(target: Extract<TestDatabaseTarget, { kind: "postgres" }>): Promise<Database> {
  const name = `spooks_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = createSql(target.adminUrl, { max: 1 });
  await admin.unsafe(`create database "${name}" template "${target.template}"`);
  const sql = createSql(withDatabase(target.adminUrl, name), { max: 10 });
  return {
    sql,
    engine: "postgres",
    description: name,
    close: async () => {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

async function createFromDump(target: Extract<TestDatabaseTarget, { kind: "pglite" }>): Promise<Database> {
  const db = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(target.dumpFile)]) });
  const server = await serveOverSocket(db);
  const url = server.url;
  const sql = createSql(url, { max: 1 });
  return {
    sql,
    engine: "pglite",
    description: url,
    close: async () => {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
    },
  };
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<Database & { url: string }> {
  const target = inject("testDatabase");
  const db = target.kind === "postgres" ? await createFromTemplate(target) : await createFromDump(target);
  const url = target.kind === "postgres" ? withDatabase(target.adminUrl, db.description) : db.description;
  return { ...db, url };
}
