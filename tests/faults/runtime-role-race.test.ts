/**
 * Roles are cluster-wide: migration 0016 creates spooks_runtime once per cluster, yet every database of the
 * cluster runs it, and the test harness (and a host with several sites) migrates several at once. On a
 * throwaway cluster that has no such role yet (skipped without PostgreSQL's binaries), six databases
 * migrated at the same moment all succeed, and each grants the one role.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql, type Sql } from "../../db/client.server.ts";
import { migrate, readMigrations } from "../../db/migrate.server.ts";
import { RUNTIME_ROLE } from "../../db/roles.server.ts";
import { PG_BIN, pgTool, startCluster, type Cluster } from "../support/pg-cluster.ts";

const DATABASES = ["site_a", "site_b", "site_c", "site_d", "site_e", "site_f"];

describe.skipIf(!PG_BIN)("migration 0016 on a fresh cluster", () => {
  let cluster: Cluster;
  const clients: Sql[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    for (const name of DATABASES) await pgTool("createdb", ["-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres", name]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
    await cluster?.destroy();
  });

  it("creates the runtime role once while several databases migrate at once, and every run succeeds", async () => {
    for (const name of DATABASES) clients.push(createSql(cluster.url(name), { max: 1 }));
    const [first, ...others] = clients;
    const [before] = await first<{ n: number }[]>`select count(*)::int as n from pg_roles where rolname = ${RUNTIME_ROLE}`;
    expect(before.n).toBe(0);
    // The race made certain: one database has created the role and not committed yet while the others
    // reach migration 0016 (they wait on the role's name, then meet it as a duplicate).
    const createRole = /^do \$\$[\s\S]*?end \$\$;/m.exec(readMigrations().find((m) => m.version.startsWith("0016"))!.sql)![0];
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const holding = first.begin(async (tx) => {
      await tx.unsafe(createRole);
      await committed;
    });
    const racing = Promise.allSettled(others.map((sql) => migrate(sql)));
    const monitor = createSql(cluster.url("postgres"), { max: 1 });
    clients.push(monitor);
    await waitUntilBlocked(monitor, others.length);
    commit();
    await holding;
    const results = await racing;
    expect(results.map((result) => (result.status === "fulfilled" ? result.value.length : String(result.reason)))).toEqual(
      others.map(() => readMigrations().length),
    );
    expect(await migrate(first)).toHaveLength(readMigrations().length);
    for (const sql of [first, ...others]) {
      const [row] = await sql<{ roles: number; insert: boolean; update: boolean }[]>`
        select (select count(*)::int from pg_roles where rolname = ${RUNTIME_ROLE}) as roles,
          has_table_privilege(${RUNTIME_ROLE}, 'points_ledger', 'insert') as insert,
          has_table_privilege(${RUNTIME_ROLE}, 'points_ledger', 'update') as update`;
      expect(row).toEqual({ roles: 1, insert: true, update: false });
    }
  });
});

/** Until `count` other sessions wait on a lock (the uncommitted role's name). */
async function waitUntilBlocked(sql: Sql, count: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`;
    if (row.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the other migrations never reached the role");
}
