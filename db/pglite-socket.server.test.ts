import { PGlite } from "@electric-sql/pglite";
import type postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { createSql, type Sql } from "./client.server.ts";
import { serveOverSocket } from "./pglite-socket.server.ts";

/** Many parameterized queries from several connections at once, none in a transaction. */
async function interleave(clients: Sql[], perClient: number): Promise<number[]> {
  const runs = clients.flatMap((sql, c) =>
    Array.from({ length: perClient }, async (_, i) => {
      // A distinct text each time, so every query is parsed, described and bound anew; the first client
      // works in transactions, which is when the bare server holds the queue for it.
      const text = `select $1::int + ${i % 7} - ${i % 7} as n /* ${c}-${i} */`;
      const run = (q: Sql | postgres.TransactionSql) => q.unsafe<{ n: number }[]>(text, [c * 1000 + i]);
      const [row] = c === 0 ? await sql.begin((tx) => run(tx as never)) : await run(sql);
      return row.n;
    }),
  );
  return Promise.all(runs);
}

const expected = (clients: number, perClient: number) =>
  Array.from({ length: clients }, (_, c) => Array.from({ length: perClient }, (_, i) => c * 1000 + i)).flat();

describe("serveOverSocket", () => {
  const toClose: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of toClose.reverse()) await close();
  });

  it("keeps each connection's extended-protocol batch together", async () => {
    const db = await PGlite.create();
    const server = await serveOverSocket(db);
    const clients = [0, 1, 2, 3, 4].map(() => createSql(server.url, { max: 1 }));
    toClose.push(() => db.close(), () => server.stop(), ...clients.map((sql) => () => sql.end()));
    expect(await interleave(clients, 60)).toEqual(expected(5, 60));
  });
  // Without keepBatchesTogether the same run fails within a few queries with `portal "" does not exist`
  // (checked by hand against a bare PGLiteSocketServer; not kept as a test because the broken server
  // leaves connections hanging).
});
