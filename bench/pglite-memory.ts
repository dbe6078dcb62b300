/**
 * Memory of an embedded process (issue 19): a fresh node process opens PGlite on a data folder as the
 * server does (db/embedded.server.ts), serves it on its socket, migrates, loads the demo catalogue and runs
 * a few hundred queries, then reports its resident memory; a second process reopens the same folder (every
 * start after the first) and does the same work. Each with PostgreSQL's default memory settings (the
 * baseline: PGlite's own start parameters, as before) and with PGLITE_MEMORY_SETTINGS. Peak = VmHWM.
 * Standalone: `node --import tsx bench/pglite-memory.ts`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { createSql } from "../db/client.server.ts";
import { PGLITE_MEMORY_SETTINGS, pgliteStartParams } from "../db/embedded.server.ts";
import { migrate } from "../db/migrate.server.ts";
import { serveOverSocket } from "../db/pglite-socket.server.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";

type Figures = { openMb: number; afterWorkMb: number; peakMb: number };
const MIB = 2 ** 20;

function peakMb(): number {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** In the child: one process's life on `dataDir`, printed as JSON. */
async function measure(dataDir: string, tuned: boolean): Promise<Figures> {
  const db = await PGlite.create({ dataDir, startParams: tuned ? pgliteStartParams() : PGlite.defaultStartParams });
  const openMb = process.memoryUsage().rss / MIB;
  const server = await serveOverSocket(db, { maxConnections: 4 });
  const sql = createSql(server.url, { max: 1 });
  await migrate(sql);
  const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from items`;
  if (count === 0) await importCatalogue(sql, demoCatalogue());
  for (let i = 0; i < 300; i++) await sql`select collection, count(*) from items group by collection`;
  const afterWorkMb = process.memoryUsage().rss / MIB;
  await sql.end();
  await server.stop();
  await db.close();
  return { openMb, afterWorkMb, peakMb: peakMb() };
}

function inChild(dataDir: string, tuned: boolean): Figures {
  const output = execFileSync(
    process.execPath,
    ["--import", "tsx", import.meta.filename, "--child", dataDir, tuned ? "tuned" : "default"],
    {
      encoding: "utf8",
    },
  );
  return JSON.parse(output.trim().split("\n").at(-1)!) as Figures;
}

const mb = (value: number) => `${Math.round(value)} MB`.padStart(8);
const line = (label: string, f: Figures) =>
  `  ${label.padEnd(46)} open ${mb(f.openMb)}   after work ${mb(f.afterWorkMb)}   peak ${mb(f.peakMb)}`;

export async function run(): Promise<void> {
  console.log(
    `settings: ${Object.entries(PGLITE_MEMORY_SETTINGS)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ")}`,
  );
  for (const tuned of [false, true]) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-pglite-memory-"));
    try {
      const label = tuned ? "ours" : "baseline (PostgreSQL's defaults)";
      console.log(line(`${label}, first start`, inChild(dataDir, tuned)));
      console.log(line(`${label}, a later start`, inChild(dataDir, tuned)));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

if (process.argv[2] === "--child") {
  const figures = await measure(process.argv[3], process.argv[4] === "tuned");
  console.log(JSON.stringify(figures));
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
