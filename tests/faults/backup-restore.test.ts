/**
 * The README's database backup and restore, on a throwaway cluster (skipped without PostgreSQL's
 * binaries): `pg_dump --format=custom`, then into a dropped and re-created database `pg_restore --no-owner`.
 * What the dump held comes back, nothing after it does, and the rules live on: the ledger still keeps
 * balances by trigger and still refuses DELETE, and no migration is pending.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressFromPublicKey } from "../../app/domain/address.ts";
import { createSql, type Sql } from "../../db/client.server.ts";
import { migrate } from "../../db/migrate.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { PG_BIN, pgTool, startCluster, type Cluster } from "../support/pg-cluster.ts";

const ADDRESS = addressFromPublicKey(new Uint8Array(33).fill(9));
const UNITS_PER_POINT = 2400;

describe.skipIf(!PG_BIN)("database backup and restore", () => {
  let cluster: Cluster;
  let sql: Sql;
  const connection = () => ["-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres"];
  const balance = async () =>
    ((await sql<{ units: number }[]>`select units from wallet_balances where address = ${ADDRESS}`)[0]?.units ?? 0) / UNITS_PER_POINT;

  beforeAll(async () => {
    cluster = await startCluster();
    await pgTool("createdb", [...connection(), "spooks"]);
    sql = createSql(cluster.url("spooks"), { max: 1 });
    await migrate(sql);
  }, 120_000);

  afterAll(async () => {
    await sql?.end({ timeout: 1 }).catch(() => {});
    await cluster?.destroy();
  });

  it("restores what the dump held, with the ledger's rules intact", async () => {
    await addPoints(sql, { address: ADDRESS, points: 5, description: "one", actor: { kind: "cli" } });
    await addPoints(sql, { address: ADDRESS, points: 3, description: "two", actor: { kind: "cli" } });
    const dump = path.join(cluster.dir, "spooks.dump");
    await pgTool("pg_dump", [...connection(), "--dbname=spooks", "--format=custom", `--file=${dump}`]);

    await addPoints(sql, { address: ADDRESS, points: 100, description: "after the backup", actor: { kind: "cli" } });
    expect(await balance()).toBe(108);

    await sql.end({ timeout: 5 });
    await pgTool("dropdb", [...connection(), "spooks"]);
    await pgTool("createdb", [...connection(), "spooks"]);
    await pgTool("pg_restore", [...connection(), "--dbname=spooks", "--no-owner", "--exit-on-error", dump]);
    sql = createSql(cluster.url("spooks"), { max: 1 });

    expect(await balance()).toBe(8);
    const ledger = await sql<{ description: string }[]>`select description from points_ledger where address = ${ADDRESS} order by id`;
    expect(ledger.map((row) => row.description)).toEqual(["one", "two"]);
    expect(await migrate(sql)).toEqual([]);

    await addPoints(sql, { address: ADDRESS, points: 2, description: "after the restore", actor: { kind: "cli" } });
    expect(await balance()).toBe(10); // the balances trigger came back, and fires once
    await expect(sql`delete from points_ledger where address = ${ADDRESS}`).rejects.toThrow();
  });
});
