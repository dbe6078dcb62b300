/**
 * One pass of each kind at a time. On real Postgres a session advisory lock, held on a reserved connection
 * for the pass, keeps indexer instances and the CLI apart: a scheduled pass skips when it is taken, a CLI
 * pass waits. PGlite has a single backend, where advisory locks never exclude and a reserved connection
 * would starve the pass of its only one, so there only the in-process guard applies. Correctness never
 * rests on either (idempotent keys, per-item transactions): they only avoid double work.
 */
import type { Sql } from "../db/client.server.ts";

export const PASS_LOCKS = { sync: 727_101, accrual: 727_102 } as const;
export type PassKind = keyof typeof PASS_LOCKS;

export type Exclusive<T> = { ran: true; value: T } | { ran: false };

const running = new WeakMap<Sql, Map<PassKind, Promise<unknown>>>();
const lockable = new WeakMap<Sql, Promise<boolean>>();

/** False on PGlite (a single backend). */
export function supportsAdvisoryLocks(sql: Sql): Promise<boolean> {
  let answer = lockable.get(sql);
  if (!answer) {
    answer = sql<{ version: string }[]>`select version() as version`.then(([row]) => !/PGlite|emscripten/i.test(row.version));
    lockable.set(sql, answer);
  }
  return answer;
}

async function underAdvisoryLock<T>(sql: Sql, kind: PassKind, wait: boolean, work: () => Promise<T>): Promise<Exclusive<T>> {
  if (!(await supportsAdvisoryLocks(sql))) return { ran: true, value: await work() };
  const connection = await sql.reserve();
  try {
    const key = PASS_LOCKS[kind];
    if (wait) {
      await connection`select pg_advisory_lock(${key})`;
    } else {
      const [row] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock(${key}) as locked`;
      if (!row.locked) return { ran: false };
    }
    try {
      return { ran: true, value: await work() };
    } finally {
      await connection`select pg_advisory_unlock(${key})`;
    }
  } finally {
    connection.release();
  }
}

/** Runs `work` as the only `kind` pass on this database; without `wait`, answers `{ ran: false }` when busy. */
export async function runExclusive<T>(sql: Sql, kind: PassKind, wait: boolean, work: () => Promise<T>): Promise<Exclusive<T>> {
  let passes = running.get(sql);
  if (!passes) running.set(sql, (passes = new Map<PassKind, Promise<unknown>>()));
  for (let current = passes.get(kind); current; current = passes.get(kind)) {
    if (!wait) return { ran: false };
    await current.catch(() => {});
  }
  // No await between the check above and registering this pass, so two callers never both get through.
  const pass = underAdvisoryLock(sql, kind, wait, work);
  passes.set(kind, pass);
  try {
    return await pass;
  } finally {
    if (passes.get(kind) === pass) passes.delete(kind);
  }
}
