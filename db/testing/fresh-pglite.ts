/**
 * In-memory PGlite databases for tests, loaded from a data folder saved once instead of made by initdb each time:
 * initdb took 5-10 s of CPU a database, loading the saved folder well under one. The folder is what initdb
 * leaves, made smaller for copying into each database's memory (a 1 MB WAL segment, not 16; no template
 * databases, which nothing in a test copies), and each database starts with the embedded database's own memory
 * settings (db/embedded.server.ts), not PGlite's 128 MB of shared buffers, which it zeroed at every start.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pgliteStartParams } from "../embedded.server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Saved data folders, beside the test builds (git-ignored). */
const TEST_DATA_DIR = path.join(ROOT, ".test-data");

/** Only while a folder is being saved: the fewest WAL segments a checkpoint keeps. */
const SAVING_PARAMS = ["-c", "min_wal_size=2MB", "-c", "max_wal_size=4MB"];

/** The installed PGlite's version (its package.json is not among the package's exports). */
function pgliteVersion(): string {
  const file = path.join(ROOT, "node_modules/@electric-sql/pglite/package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}

/** A new database from the saved folder `tarFile` (or as initdb leaves it), with the embedded settings. */
export async function freshPGlite(options: PGliteOptions = {}, tarFile?: string): Promise<PGlite> {
  const folder = tarFile ?? (await initdbFolder());
  return PGlite.create({ startParams: pgliteStartParams(), ...options, loadDataDir: new Blob([fs.readFileSync(folder)]) });
}

/**
 * `name`'s saved folder in .test-data, made by `prepare` on a fresh database the first time (a later run with the
 * same name finds it). Saved after a checkpoint, so a database loaded from it replays no WAL, and with the fewest
 * WAL segments kept; written whole or not at all, so a process that asks while another saves reads one or the
 * other's, never a part.
 */
export async function savedFolder(name: string, prepare: (db: PGlite) => Promise<void>, from?: string): Promise<string> {
  const file = path.join(TEST_DATA_DIR, `${name}.tar`);
  if (fs.existsSync(file)) return file;
  const db = from
    ? await freshPGlite({ startParams: [...pgliteStartParams(), ...SAVING_PARAMS] }, from)
    : await PGlite.create({ initDbStartParams: ["--wal-segsize=1"], startParams: [...pgliteStartParams(), ...SAVING_PARAMS] });
  try {
    await prepare(db);
    await db.exec("checkpoint");
    const dump = await db.dumpDataDir("none");
    fs.mkdirSync(TEST_DATA_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    await db.close();
  }
  return file;
}

/** The folder initdb leaves, without the template databases, named by the PGlite version and its settings. */
export function initdbFolder(): Promise<string> {
  const settings = createHash("sha256").update(pgliteVersion()).update(pgliteStartParams().join(" ")).digest("hex").slice(0, 12);
  return savedFolder(`pglite-initdb-${settings}`, async (db) => {
    for (const template of ["template1", "template0"]) {
      // One statement a call: DROP DATABASE cannot run inside the transaction a multi-statement call is.
      await db.exec(`alter database ${template} is_template false`);
      await db.exec(`drop database ${template}`);
    }
  });
}
