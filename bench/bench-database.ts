/**
 * A benchmark's own throwaway database on the benchmarks' PostgreSQL (BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test): created and migrated before `work`, dropped after it, whatever
 * happens.
 */
import { readFileSync } from "node:fs";
import { createSql, type Sql } from "../db/client.server.ts";
import { migrate } from "../db/migrate.server.ts";

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function withBenchDatabase(
  label: string,
  maxConnections: number,
  work: (sql: Sql, url: string) => Promise<void>,
): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `spooks_bench_${label}_${process.pid}`;
  const admin = createSql(adminUrl, { max: 1 });
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(adminUrl, name);
  const sql = createSql(url, { max: maxConnections });
  try {
    await migrate(sql);
    await work(sql, url);
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

/**
 * CPU time (ms) the database's server processes spent on this database's connections, when the server runs on
 * this machine (Linux /proc; null otherwise). On a machine shared with other work, it is steadier than the time
 * on the clock, which counts the waits for a core too.
 */
async function serverCpu(sql: Sql): Promise<Map<number, number> | null> {
  const pids = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  try {
    return new Map(pids.map(({ pid }) => [pid, Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6]));
  } catch {
    return null;
  }
}

/** What `work` answers, and the database server's CPU time (ms) meanwhile (null when it cannot be read). */
export async function withServerCpu<T>(sql: Sql, work: () => Promise<T>): Promise<{ value: T; cpu: number | null }> {
  const before = await serverCpu(sql);
  const value = await work();
  const after = await serverCpu(sql);
  if (!before || !after) return { value, cpu: null };
  let cpu = 0;
  for (const [pid, spent] of after) cpu += spent - (before.get(pid) ?? 0);
  return { value, cpu };
}
