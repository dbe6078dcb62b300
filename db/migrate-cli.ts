/** `npm run db:migrate`: applies pending migrations to the configured database and says what it did. */
import { redactUrlsIn } from "../app/domain/redact.ts";
import { loadConfig } from "../app/utils/env.server.ts";
import { openDatabase } from "./client.server.ts";
import { migrateAsOwner } from "./migrate.server.ts";

const config = loadConfig();
try {
  const db = await openDatabase({ ...config, warn: ({ msg, dataDir }) => console.warn(`spooks: ${msg}: ${String(dataDir)}`) });
  try {
    const applied = await migrateAsOwner(db, config.migrateDatabaseUrl);
    console.log(applied.length ? `Applied ${applied.join(", ")} to ${db.description}` : `Nothing to apply on ${db.description}`);
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(`spooks: ${redactUrlsIn((error as Error).message)}`);
  process.exitCode = 1;
}
