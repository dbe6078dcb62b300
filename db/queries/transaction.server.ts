/** Runs work in a transaction: a new one on the pool, or the caller's own when it already holds one. */
import type { Queryable, TransactionSql } from "../client.server.ts";

export function isTransaction(sql: Queryable): sql is TransactionSql {
  return typeof (sql as { savepoint?: unknown }).savepoint === "function";
}

export async function inTransaction<T>(sql: Queryable, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  if (isTransaction(sql)) return work(sql);
  return (await sql.begin((tx) => work(tx as TransactionSql))) as T;
}
