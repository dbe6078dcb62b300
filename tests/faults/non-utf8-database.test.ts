/**
 * A database that is not UTF8 (a cluster made without a UTF-8 locale is SQL_ASCII) is refused before any
 * migration runs, with words that say what to do: the public log's migration (0040) needs UTF-8, and without the
 * check the run failed halfway, in PostgreSQL's words. On a throwaway cluster (skipped without PostgreSQL's binaries).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql, type Sql } from "../../db/client.server.ts";
import { migrate } from "../../db/migrate.server.ts";
import { PG_BIN, startCluster, type Cluster } from "../support/pg-cluster.ts";

describe.skipIf(!PG_BIN)("a database that is not UTF8", () => {
  let cluster: Cluster;
  const clients: Sql[] = [];
  const client = (database: string) => {
    const sql = createSql(cluster.url(database), { max: 1 });
    clients.push(sql);
    return sql;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    const admin = client("postgres");
    await admin.unsafe("create database ascii_site encoding 'SQL_ASCII' lc_collate 'C' lc_ctype 'C' template template0");
    await admin.unsafe("create database latin_site encoding 'LATIN1' lc_collate 'C' lc_ctype 'C' template template0");
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((sql) => sql.end({ timeout: 1 }).catch(() => {})));
    await cluster?.destroy();
  });

  it("is refused before anything is applied, naming its encoding and how to make one that works", async () => {
    for (const [name, encoding] of [
      ["ascii_site", "SQL_ASCII"],
      ["latin_site", "LATIN1"],
    ]) {
      const sql = client(name);
      await expect(migrate(sql)).rejects.toThrow(
        `The database "${name}" is encoded ${encoding}; Spooks needs a UTF8 database ` +
          `(create it with: create database ${name} encoding 'UTF8' template template0)`,
      );
      const [{ tables }] = await sql<{ tables: number }[]>`select count(*)::int as tables from pg_tables where schemaname = 'public'`;
      expect(tables).toBe(0);
    }
  });

  it("a UTF8 database of the same cluster migrates", async () => {
    expect((await migrate(client("postgres"))).length).toBeGreaterThan(10);
  });
});
