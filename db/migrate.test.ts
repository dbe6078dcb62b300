/**
 * Migrations on a fresh, EMPTY database (not the harness's migrated copy): a new database on the test
 * server for real Postgres, an in-memory PGlite behind a socket otherwise.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createSql, openDatabase, type Database, type Sql } from "./client.server.ts";
import { migrate, migrateAsOwner, MigrationError, readMigrations, type Migration } from "./migrate.server.ts";
import { appRoleWarning, RUNTIME_ROLE } from "./roles.server.ts";
import { emptyDatabase } from "./testing/older-database.ts";

type EmptyDatabase = { engine: "postgres" | "pglite"; url: string; client(): Sql; close(): Promise<void> };

async function createEmptyDatabase(): Promise<EmptyDatabase> {
  const clients: Sql[] = [];
  const db = await emptyDatabase("migrate");
  return {
    engine: inject("testDatabase").kind === "postgres" ? "postgres" : "pglite",
    url: db.url,
    client: () => {
      const sql = createSql(db.url, { max: 1 });
      clients.push(sql);
      return sql;
    },
    close: async () => {
      await Promise.all(clients.map((sql) => sql.end({ timeout: 5 })));
      await db.close();
    },
  };
}

async function tableExists(sql: Sql, table: string): Promise<boolean> {
  const [row] = await sql<{ exists: boolean }[]>`select to_regclass(${table}) is not null as exists`;
  return row.exists;
}

async function recordedVersions(sql: Sql): Promise<string[]> {
  if (!(await tableExists(sql, "schema_migrations"))) return [];
  const rows = await sql<{ version: string }[]>`select version from schema_migrations order by version`;
  return rows.map((row) => row.version);
}

const GOOD: Migration = { version: "9001_good", sql: "create table good_one (id integer primary key);" };
const BAD: Migration = {
  version: "9002_bad",
  sql: "create table bad_one (id integer);\ninsert into no_such_table values (1);",
};

describe("readMigrations", () => {
  it("lists the numbered .sql files in order, starting with 0001_init", () => {
    const versions = readMigrations().map((migration) => migration.version);
    expect(versions[0]).toBe("0001_init");
    expect(versions).toEqual([...versions].sort());
    for (const version of versions) expect(version).toMatch(/^\d{4}_[\w-]+$/);
    expect(readMigrations()[0].sql).toMatch(/create table items/);
  });
});

describe("migrate on a fresh empty database", () => {
  let empty: EmptyDatabase;
  let sql: Sql;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
    sql = empty.client();
  });
  afterAll(async () => {
    await empty?.close();
  });

  it("a failing migration after a good one leaves nothing behind and names the failed version", async () => {
    const error = await migrate(sql, [GOOD, BAD]).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/^Migration 9002_bad failed: .*no_such_table/);
    expect(await tableExists(sql, "good_one")).toBe(false);
    expect(await tableExists(sql, "bad_one")).toBe(false);
    expect(await recordedVersions(sql)).toEqual([]);
  });

  it("applies every migration, records each, and a second run applies nothing", async () => {
    const all = readMigrations().map((migration) => migration.version);
    expect(await migrate(sql)).toEqual(all);
    expect(await recordedVersions(sql)).toEqual(all);
    for (const table of ["items", "stakes", "points_ledger", "balances", "giveaways", "proposals", "votes", "audit_log"]) {
      expect(await tableExists(sql, table), table).toBe(true);
    }
    expect(await migrate(sql)).toEqual([]);
    expect(await recordedVersions(sql)).toEqual(all);
  });

  it("after a failure on a migrated database, keeps what was applied and records nothing new", async () => {
    const before = await recordedVersions(sql);
    await expect(migrate(sql, [...readMigrations(), GOOD, BAD])).rejects.toThrow(/9002_bad/);
    expect(await recordedVersions(sql)).toEqual(before);
    expect(await tableExists(sql, "good_one")).toBe(false);
    expect(await tableExists(sql, "items")).toBe(true);
    // The connection is still usable, and the good one applies on its own.
    expect(await migrate(sql, [...readMigrations(), GOOD])).toEqual(["9001_good"]);
    expect(await tableExists(sql, "good_one")).toBe(true);
  });

  it("on the embedded database, logs in as the owner only when a migration is pending", async () => {
    // An owner URL nothing listens on: reaching for it fails loudly.
    const embedded: Database = {
      sql,
      engine: "pglite",
      description: "test",
      migratorUrl: "postgres://postgres:x@127.0.0.1:1/none",
      close: async () => {},
    };
    expect(await migrateAsOwner(embedded)).toEqual([]);
    const [last] = readMigrations().slice(-1);
    await sql`delete from schema_migrations where version = ${last.version}`;
    await expect(migrateAsOwner(embedded)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await sql`insert into schema_migrations (version, applied_at) values (${last.version}, now())`;
  });
});

describe.skipIf(inject("testDatabase").kind !== "postgres")("migrate on real Postgres", () => {
  let empty: EmptyDatabase;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
  });
  afterAll(async () => {
    await empty?.close();
  });

  it("two concurrent runs on a fresh database both succeed and apply each migration once", async () => {
    const all = readMigrations().map((migration) => migration.version);
    const [a, b] = [empty.client(), empty.client()];
    const results = await Promise.all([migrate(a), migrate(b)]);
    expect(results.map((applied) => applied.length).sort()).toEqual([0, all.length]);
    expect(results.flat()).toEqual(all);
    const [row] = await a<{ count: number }[]>`select count(*)::int as count from schema_migrations`;
    expect(row.count).toBe(all.length);
  });
});

describe.skipIf(inject("testDatabase").kind !== "postgres")("migrate as MIGRATE_DATABASE_URL's owner on real Postgres", () => {
  let empty: EmptyDatabase;
  const login = `spooks_migrate_login_${randomBytes(4).toString("hex")}`;
  let admin: Sql;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
    admin = empty.client();
    await admin.unsafe(`create role ${login} login password '${login}'`);
  });
  afterAll(async () => {
    await admin?.unsafe(`drop role if exists ${login}`);
    await empty?.close();
  });

  it("migrates as the owner and makes DATABASE_URL's login a member of the runtime role, which writes rows but no schema", async () => {
    const url = new URL(empty.url);
    url.username = login;
    url.password = login;
    const db = await openDatabase({ databaseUrl: url.toString(), dataDir: "unused" });
    try {
      const all = readMigrations().map((migration) => migration.version);
      expect(await migrateAsOwner(db, empty.url)).toEqual(all);
      expect(await appRoleWarning(db, true)).toBeNull();
      const [{ member }] = await db.sql`select pg_has_role(current_user, ${RUNTIME_ROLE}, 'member') as member`;
      expect(member).toBe(true);
      await db.sql`insert into points_ledger (address, kind, amount, actor, created_at) values ('DRuntime', 'admin_add', 5, 'test', now())`;
      await expect(db.sql`update points_ledger set amount = 6`).rejects.toMatchObject({ code: "42501" });
      // With nothing pending its own run changes nothing (no DDL); with a pending one it says what to set.
      expect(await migrateAsOwner(db)).toEqual([]);
      await expect(migrate(db.sql, [...readMigrations(), GOOD])).rejects.toThrow(/9001_good failed: .*set MIGRATE_DATABASE_URL/);
      expect(await migrateAsOwner(db, empty.url)).toEqual([]);
    } finally {
      await db.close();
    }
    // The owner itself (here a superuser) running the app is warned about.
    const owner = await openDatabase({ databaseUrl: empty.url, dataDir: "unused" });
    try {
      expect(await appRoleWarning(owner, false)).toMatch(/is a superuser: .*set MIGRATE_DATABASE_URL to the owner/);
    } finally {
      await owner.close();
    }
  });
});

describe("0013: vote receipts for votes cast before it", () => {
  let empty: EmptyDatabase;
  let sql: Sql;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
    sql = empty.client();
  });
  afterAll(async () => {
    await empty?.close();
  });

  it("fills each old vote's items from stake history, or leaves null when they no longer add up to its weight", async () => {
    const [before, after] = [
      readMigrations().filter((migration) => migration.version < "0013"),
      readMigrations().filter((migration) => migration.version >= "0013"),
    ];
    await migrate(sql, before);
    const id = (n: number) => `${n.toString(16).padStart(64, "0")}i0`;
    await sql`
      insert into items (id, inscription_id, collection, name, number, rank, rarity)
      values (1, ${id(2)}, 'spooks', 'Spooks #1', 1, 500, 'Common'), (2, ${id(1)}, 'spooks', 'Spooks #2', 2, 501, 'Common')`;
    await sql`
      insert into stakes (item_id, address, started_at, ended_at, end_reason) values
        (1, 'DAlice', '2030-01-01', null, null), (2, 'DAlice', '2030-01-01', '2030-03-01', 'unstaked'),
        (2, 'DBob', '2030-03-02', null, null)`;
    await sql`
      insert into proposals (id, title, description, start_date, end_date, vote_type, created_by, created_at)
      values (1, 'P', 'D', '2030-02-01', '2030-04-01', 'yes_no', 'cli', '2030-01-15')`;
    await sql`insert into proposal_options (id, proposal_id, position, option_text) values (1, 1, 0, 'Yes')`;
    await sql`
      insert into votes (proposal_id, option_id, address, weight, signature, message, voted_at) values
        (1, 1, 'DAlice', 2, 's', 'm', '2030-02-02'), (1, 1, 'DCarol', 1, 's', 'm', '2030-02-02')`;
    expect(await migrate(sql, [...before, ...after])).toEqual(after.map((migration) => migration.version));
    expect(await sql`select address, staked_at_start from votes order by address`).toEqual([
      { address: "DAlice", stakedAtStart: [id(1), id(2)] },
      { address: "DCarol", stakedAtStart: null },
    ]);
  });
});
