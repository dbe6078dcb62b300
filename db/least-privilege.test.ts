/**
 * Least privilege (issue 23, item 2): the role the app runs as (the harness's `sql`, as in production: on
 * PostgreSQL a login that is a member of spooks_runtime, on PGlite the embedded socket's runtime login) can
 * write rows but can neither rewrite the append-only history nor get around it, on either engine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "./client.server.ts";
import { rolePowers, RUNTIME_ROLE } from "./roles.server.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/test-database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

const APPEND_ONLY = [
  { table: "points_ledger", triggers: ["points_ledger_no_update", "points_ledger_no_truncate"], fn: "points_ledger_is_append_only" },
  { table: "audit_log", triggers: ["audit_log_no_update", "audit_log_no_truncate"], fn: "audit_log_is_append_only" },
];

/** Every way around an append-only table that the issue names. */
function waysAround({ table, triggers, fn }: (typeof APPEND_ONLY)[number]): string[] {
  return [
    `update ${table} set created_at = created_at`,
    `delete from ${table}`,
    `truncate ${table}`,
    `alter table ${table} disable trigger ${triggers[0]}`,
    `alter table ${table} disable trigger all`,
    `drop trigger ${triggers[0]} on ${table}`,
    `drop trigger ${triggers[1]} on ${table}`,
    `create or replace function ${fn}() returns trigger language plpgsql as $$ begin return old; end $$`,
    `alter function ${fn}() rename to ${fn}_gone`,
    `drop function ${fn}() cascade`,
    `alter table ${table} rename to ${table}_gone`,
    `drop table ${table} cascade`,
    `set session_replication_role = replica`,
  ];
}

async function sqlState(sql: Sql, text: string): Promise<string> {
  return sql.unsafe(text).then(
    () => "accepted",
    (error: { code?: string }) => error.code ?? "no code",
  );
}

/** What the owner sees of the append-only defences and rows (must not move). */
async function defences(session: Sql = db.sql): Promise<unknown> {
  const owner = db.owner.sql;
  const triggers = await owner`
    select tgname, tgenabled from pg_trigger
    where tgrelid in ('points_ledger'::regclass, 'audit_log'::regclass) and not tgisinternal order by tgname`;
  const functions = await owner`
    select proname, md5(prosrc) as body from pg_proc
    where proname in ('points_ledger_is_append_only', 'audit_log_is_append_only') order by proname`;
  const [rows] = await owner`
    select (select count(*) from points_ledger) as ledger, (select count(*) from audit_log) as audit,
      (select coalesce(sum(amount), 0) from points_ledger)::bigint as units`;
  const [replication] = await session`select current_setting('session_replication_role') as value`;
  return { triggers, functions, rows, replication };
}

describe("the app's database role", () => {
  it("owns nothing and is no superuser, yet has the runtime role's grants", async () => {
    const powers = await rolePowers(db.sql);
    expect(powers).toMatchObject({ superuser: false, ownsSchema: false });
    const [row] = await db.sql<{ member: boolean; create: boolean }[]>`
      select pg_has_role(current_user, ${RUNTIME_ROLE}, 'member') as member, has_schema_privilege('public', 'create') as create`;
    expect(row).toEqual({ member: true, create: false });
  });

  it("writes and reads what the app writes: ledger rows (with their balance), audit rows, a stake", async () => {
    const address = "DLeastPrivilegeTestAddress000001";
    await db.sql.begin(async (tx) => {
      await tx`set local synchronous_commit = off`;
      await tx`lock table balances in share row exclusive mode`;
      await tx`insert into points_ledger (address, kind, amount, actor, created_at) values (${address}, 'admin_add', 500, 'test', now())`;
      await tx`insert into audit_log (actor, action, target, created_at) values ('cli', 'points.add', ${address}, now())`;
    });
    const [balance] = await db.sql<{ units: number }[]>`select units from wallet_balances where address = ${address}`;
    expect(balance.units).toBe(500);
  });

  for (const appendOnly of APPEND_ONLY) {
    it(`is refused every way around ${appendOnly.table}`, async () => {
      await db.owner
        .sql`insert into points_ledger (address, kind, amount, actor, created_at) values ('DKept', 'admin_add', 7, 'test', now())`;
      await db.owner.sql`insert into audit_log (actor, action, target, created_at) values ('cli', 'kept', 'DKept', now())`;
      const before = await defences();
      const outcomes: Record<string, string> = {};
      for (const statement of waysAround(appendOnly)) outcomes[statement] = await sqlState(db.sql, statement);
      expect(outcomes).toEqual(Object.fromEntries(waysAround(appendOnly).map((statement) => [statement, "42501"])));
      expect(await defences()).toEqual(before);
    });
  }

  it("cannot get back to a superuser or the owner, whatever it sends first", async () => {
    const attempts = [
      "reset role",
      "set role postgres",
      "set session authorization postgres",
      "reset session authorization",
      "set local role postgres",
      `set "role" = 'postgres'`,
      "discard all",
      "reset all",
      "select set_config('role', 'postgres', false)",
      "update pg_settings set setting = 'postgres' where name = 'role'",
      "do $$ begin execute 'reset role'; end $$",
      "select 1; reset role",
      "/* a comment */ reset role",
      "select '--'; reset role",
      "select 'a'';'; reset role",
      "select E'\\\\'; reset role; --'",
      "select $x$;$x$; reset role",
      `select 1 as "x;"; reset role`,
      "create temporary table balances (address text, units bigint, updated_at timestamptz)",
      "select * into temporary table points_ledger from points_ledger",
    ];
    // On PostgreSQL, the same session for each attempt and its check (on PGlite there is only one).
    const connection = (await db.sql.reserve()) as unknown as Sql & { release(): void };
    try {
      const before = await defences(connection);
      for (const attempt of attempts) {
        await connection.unsafe(attempt).catch(() => {});
        const [who] = await connection<{ user: string; superuser: boolean }[]>`
          select current_user as user, (select rolsuper from pg_roles where rolname = current_user) as superuser`;
        expect({ attempt, superuser: who.superuser }).toEqual({ attempt, superuser: false });
        expect({ attempt, drop: await sqlState(connection, "drop table points_ledger cascade") }).toEqual({
          attempt,
          drop: "42501",
        });
        expect({ attempt, temporary: await sqlState(connection, "select count(*) from pg_temp.balances") }).not.toEqual({
          attempt,
          temporary: "accepted",
        });
      }
      expect(await defences(connection)).toEqual(before);
    } finally {
      connection.release();
    }
  });
});
