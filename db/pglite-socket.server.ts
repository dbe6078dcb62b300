/**
 * Serves a PGlite instance on a loopback port to any number of `postgres` clients.
 *
 * pglite-socket multiplexes its connections onto PGlite's single backend, keeping a connection's
 * statements together only while an explicit transaction is open. Outside one, postgres.js's extended
 * protocol (Parse, Bind, Execute … Sync) from two connections could interleave, and one connection's
 * unnamed statement or portal would replace the other's ("portal "" does not exist"). So the queue is
 * also kept on one connection from its first message until its Sync (or simple Query): a whole batch
 * runs before another connection's.
 */
import type { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

const SYNC = 0x53; // 'S'
const SIMPLE_QUERY = 0x51; // 'Q'

function keepBatchesTogether(db: PGlite): void {
  let batchOpen = false;
  const execProtocolRawStream = db.execProtocolRawStream.bind(db);
  const isInTransaction = db.isInTransaction.bind(db);
  db.execProtocolRawStream = (message, options) => {
    batchOpen = message[0] !== SYNC && message[0] !== SIMPLE_QUERY;
    return execProtocolRawStream(message, options);
  };
  db.isInTransaction = () => batchOpen || isInTransaction();
}

export type SocketServing = { url: string; port: number; stop(): Promise<void> };

export async function serveOverSocket(db: PGlite, maxConnections = 16): Promise<SocketServing> {
  keepBatchesTogether(db);
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    port,
    stop: () => server.stop(),
  };
}
