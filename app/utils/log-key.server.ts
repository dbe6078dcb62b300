/**
 * The log's signing key (docs/transparency.md, "Keys"): LOG_SIGNING_KEY when set; otherwise a key made once
 * and kept, so every replica signs with the same one: embedded, in the data folder (owner-only file);
 * PostgreSQL, in the database's log_signing_key table, which only the owner role reads (the process holds the
 * owner's connection at start-up only: MIGRATE_DATABASE_URL, else DATABASE_URL).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { formatSignerKey, formatVerifierKey, parseSignerKey, signerFromSeed, verifierOf, type Signer } from "../domain/tlog/note.ts";
import { createSql, type Database } from "../../db/client.server.ts";
import type { Config } from "./env.server.ts";

export const LOG_KEY_FILE = "log-signing-key";

export type LogKey = { signer: Signer; verifierKey: string; source: "LOG_SIGNING_KEY" | "data folder" | "database" };

/** The log's origin (its key's name) when none is configured: the PUBLIC_URL host + `/log`. */
export function defaultLogOrigin(publicUrl: string | undefined): string {
  return `${publicUrl ? new URL(publicUrl).host : "localhost"}/log`;
}

/** A new signer key for `origin`. */
export function newLogSigner(origin: string): Signer {
  return signerFromSeed(origin, randomBytes(32));
}

function keyFromFile(dataDir: string, origin: string): Signer {
  const file = path.join(dataDir, LOG_KEY_FILE);
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, `${formatSignerKey(newLogSigner(origin))}\n`, { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return parseSignerKey(fs.readFileSync(file, "utf8").trim());
}

async function keyFromDatabase(ownerUrl: string, origin: string): Promise<Signer> {
  const owner = createSql(ownerUrl, { max: 1 });
  try {
    await owner`
      insert into log_signing_key (signer_key, created_at) values (${formatSignerKey(newLogSigner(origin))}, now())
      on conflict (only_row) do nothing`;
    const [row] = await owner<{ signerKey: string }[]>`select signer_key from log_signing_key`;
    return parseSignerKey(row.signerKey);
  } finally {
    await owner.end({ timeout: 5 });
  }
}

/**
 * The key this process signs with, or null when it cannot read the kept one (a replica without the owner's
 * connection: it serves the log, another process signs).
 */
export async function loadLogKey(db: Database, config: Config): Promise<LogKey | null> {
  const origin = defaultLogOrigin(config.publicUrl);
  let signer: Signer;
  let source: LogKey["source"];
  if (config.log.signingKey) {
    signer = parseSignerKey(config.log.signingKey);
    source = "LOG_SIGNING_KEY";
  } else if (db.engine === "pglite") {
    signer = keyFromFile(config.dataDir, origin);
    source = "data folder";
  } else {
    const ownerUrl = config.migrateDatabaseUrl ?? config.databaseUrl;
    if (!ownerUrl) return null;
    try {
      signer = await keyFromDatabase(ownerUrl, origin);
    } catch (error) {
      if ((error as { code?: string }).code === "42501") return null;
      throw error;
    }
    source = "database";
  }
  return { signer, verifierKey: formatVerifierKey(verifierOf(signer)), source };
}
