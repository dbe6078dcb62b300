/**
 * What guards a web request's statements and transactions (issue 32, item 2), on the suite's engine: on
 * PostgreSQL the request pool cancels a statement after its timeout (57014) and its connection goes on; on the
 * embedded database PGlite cannot interrupt a statement (its socket rolls back a transaction idle too long:
 * db/pglite-socket.server.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../tests/support/test-database.ts";
import { openRequestSql, REQUEST_STATEMENT_TIMEOUT_MS } from "./client.server.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

describe("the web's request pool", () => {
  it("on PostgreSQL: its own connections, each with the request statement timeout", async () => {
    const requests = openRequestSql(db, db.url);
    try {
      if (db.engine !== "postgres") return expect(requests.sql).toBe(db.sql);
      expect(requests.sql).not.toBe(db.sql);
      const [row] = await requests.sql<{ statementTimeout: string }[]>`show statement_timeout`;
      expect(row.statementTimeout).toBe(`${REQUEST_STATEMENT_TIMEOUT_MS / 1000}s`);
      // The main pool (migrations, indexer) has none.
      expect(await db.sql`show statement_timeout`).toEqual([{ statementTimeout: "0" }]);
    } finally {
      await requests.close();
    }
  });

  it("on PostgreSQL: a statement past the timeout is cancelled, its transaction rolled back, and the pool goes on", async () => {
    if (db.engine !== "postgres") return;
    const requests = openRequestSql(db, db.url, 300);
    try {
      const started = performance.now();
      const outcome = await requests.sql
        .begin(async (tx) => {
          await tx`select 1`;
          await tx`select pg_sleep(5)`;
        })
        .catch((error: { code?: string }) => error.code);
      expect(outcome).toBe("57014");
      expect(performance.now() - started).toBeLessThan(3000);
      expect(await requests.sql`select 1 as n`).toEqual([{ n: 1 }]);
    } finally {
      await requests.close();
    }
  });
});
