/**
 * A real process owning the embedded database in DATA_DIR (argv[2]), as `npm start` does: opens it,
 * applies the migrations, prints one JSON line per warning and `{"ready":true}`, then serves until SIGTERM.
 * Used by the tests that attack its socket from outside.
 */
import { openDatabase } from "../client.server.ts";
import { migrateAsOwner } from "../migrate.server.ts";

const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

const db = await openDatabase({ dataDir: process.argv[2], warn: (line) => print({ warning: line }) });
await migrateAsOwner(db);
print({ ready: true });
process.once("SIGTERM", () => {
  void db.close().finally(() => process.exit(0));
});
