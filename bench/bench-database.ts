/**
 * A benchmark's own throwaway database on the benchmarks' PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test): created and migrated before `work`, dropped after it, whatever
 * happens.
 */
import { createSql, type Sql } from "../db/client.server.ts";
import { migrate } from "../db/migrate.server.ts";

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function withBenchDatabase(label: string, maxConnections: number, work: (sql: Sql) => Promise<void>): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `spooks_bench_${label}_${process.pid}`;
  const admin = createSql(adminUrl, { max: 1 });
  await admin.unsafe(`create database "${name}"`);
  const sql = createSql(withDatabase(adminUrl, name), { max: maxConnections });
  try {
    await migrate(sql);
    await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}
