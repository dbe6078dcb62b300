/**
 * A throwaway PostgreSQL cluster for tests that stop, restart, dump or restore a server (never the shared
 * one): Debian's binaries (`apt-get install postgresql`), a temp folder, a free loopback port, trust auth.
 * As root, initdb and postgres run as the `postgres` user, as .ci/run does.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./net.ts";

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin folder, or null when there is none (tests skip). */
export const PG_BIN: string | null = (() => {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, "bin", "pg_ctl")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], "bin") : null;
})();

const asRoot = process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs (as `postgres` when we are root); resolves with its stdout. */
export async function pgTool(tool: string, args: string[], options: { input?: string } = {}): Promise<string> {
  const program = path.join(PG_BIN!, tool);
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  const { stdout } = await run(command, argv, { timeout: 120_000, maxBuffer: 256 * 1024 * 1024, ...options });
  return stdout;
}

export type Cluster = {
  /** postgres://postgres@127.0.0.1:PORT/DATABASE */
  url(database?: string): string;
  port: number;
  /** A folder the postgres user can write (dumps go here). */
  dir: string;
  /** pg_ctl with fast shutdown, waiting until done. */
  ctl(action: "start" | "stop" | "restart"): Promise<void>;
  destroy(): Promise<void>;
};

export async function startCluster(): Promise<Cluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-pg-"));
  if (asRoot) fs.chownSync(dir, Number((await run("id", ["-u", "postgres"])).stdout.trim()), 0);
  const port = await freePort();
  const data = path.join(dir, "data");
  await pgTool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8"]);
  const ctl = async (action: "start" | "stop" | "restart") => {
    const options = action === "stop" ? [] : ["-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`];
    await pgTool("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-m", "fast", ...options, action]);
  };
  await ctl("start");
  return {
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    port,
    dir,
    ctl,
    destroy: async () => {
      await ctl("stop").catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
