/**
 * Embedded Postgres: PGlite kept in `<dataDir>/pglite`, served on a loopback port (./pglite-socket.server.ts).
 * The process that opens the files writes the connection file `<dataDir>/embedded.json` (pid, port and
 * the socket's random password; mode 0600, so only the operator's account can read it); another process
 * on the same DATA_DIR (or a second open in the same process) attaches to that port with that password
 * rather than opening the files a second time, waiting while the owner is still starting. Any other local
 * process, without the password, is refused. That password is the runtime login's (db/roles.server.ts): every
 * connection acts as the runtime role, which owns nothing and cannot get back to PGlite's superuser; only
 * the process that opened the files holds the owner login (`migratorUrl`, in memory), which its migrations
 * use. The socket server queues queries and keeps a transaction's
 * statements together, so attached clients are safe, but they share one backend: advisory locks do not
 * exclude between them. DATA_DIR is kept owner-only (./data-dir.server.ts).
 */
import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { processIsAlive } from "../app/utils/process-alive.server.ts";
import { secureDataDir, tightenDataDir, type Warn } from "./data-dir.server.ts";
import { pgliteWasmModule } from "./pglite-wasm.server.ts";
import { connectionUrl, newPassword, serveOverSocket } from "./pglite-socket.server.ts";
import { RUNTIME_ROLE } from "./roles.server.ts";

/** `url`: the runtime login; `migratorUrl`: the owner login, only in the process that opened the files. */
export type Embedded = { url: string; migratorUrl?: string; description: string; close(): Promise<void> };

/** The connection file: port 0 (and no password) while the owner is still opening PGlite. */
type Owner = { pid: number; port: number; password?: string };

const MAX_ATTACHED_CONNECTIONS = 16;

/**
 * PostgreSQL's memory settings for the one embedded backend (bench/pglite-memory.ts measures them): its
 * defaults size shared buffers for a server of many backends (128 MB), held in the WebAssembly heap whether
 * used or not; our whole database is a few MB, so 16 MB of buffers keeps every page cached.
 */
export const PGLITE_MEMORY_SETTINGS: Record<string, string> = {
  shared_buffers: "16MB",
  temp_buffers: "1MB",
  wal_buffers: "1MB",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
};

/** PGlite's own start parameters, then ours (a later `-c` wins). */
export function pgliteStartParams(settings: Record<string, string> = PGLITE_MEMORY_SETTINGS): string[] {
  return [...PGlite.defaultStartParams, ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
}

/**
 * Whether the owner's port serves: "refused" only when nothing listens there (its owner is gone), "busy" when
 * it did not answer in time (an owner under load or a connection flood is slow, not gone).
 */
function probePort(port: number): Promise<"serves" | "refused" | "busy"> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve("serves")));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? "refused" : "busy"));
    socket.once("timeout", () => (socket.destroy(), resolve("busy")));
  });
}

function readOwner(file: string): Owner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, "utf8")) as Owner;
    if (!Number.isInteger(owner.pid) || !Number.isInteger(owner.port)) return null;
    return owner.port === 0 || typeof owner.password === "string" ? owner : null;
  } catch {
    return null;
  }
}

type Served = { port: number; password: string };

/**
 * Data folders this process serves (resolved path → its port and password, or null once a start failed):
 * a second open in the same process attaches to the socket instead of opening the files twice.
 */
const servedHere = new Map<string, Promise<Served | null>>();

/** How long to wait for another process that has claimed the folder but not yet published its port. */
const OWNER_START_WAIT_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function attached(root: string, { port, password }: { port: number; password: string }, pid: number): Embedded {
  return {
    url: connectionUrl(port, password, RUNTIME_ROLE),
    description: `embedded PGlite in ${root} (attached to process ${pid})`,
    close: async () => {},
  };
}

/**
 * Writes the owner file whole (never a half-written file another process could read as garbage), readable
 * and writable by its owner only (it holds the socket's password).
 */
function writeOwner(file: string, owner: Owner, exclusive: boolean): boolean {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(owner), { mode: 0o600 });
  fs.chmodSync(tmp, 0o600); // whatever the umask
  try {
    if (!exclusive) {
      fs.renameSync(tmp, file);
      return true;
    }
    try {
      fs.linkSync(tmp, file); // atomic, and fails if the file exists: the claim
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Removes the owner file judged stale, unless another process replaced it with a fresh claim meanwhile:
 * the file is moved aside atomically, and put back if it is not the one that was judged.
 */
function removeStaleOwner(file: string, stale: Owner | null): void {
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // already gone
  }
  const moved = readOwner(aside);
  if (moved && (!stale || moved.pid !== stale.pid || moved.port !== stale.port)) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // a newer claim is already in place
    }
  }
  fs.rmSync(aside, { force: true });
}

/** `warn` logs that DATA_DIR was open to other accounts (it is made owner-only either way). */
export async function openEmbedded(dataDir: string, warn: Warn = () => {}): Promise<Embedded> {
  const root = path.resolve(dataDir);
  secureDataDir(root, warn);
  const ownerFile = path.join(root, "embedded.json");
  const deadline = Date.now() + OWNER_START_WAIT_MS;

  for (;;) {
    const here = servedHere.get(root);
    if (here) {
      const served = await here;
      if (served !== null) return attached(root, served, process.pid);
      continue; // that start failed (and was forgotten): try again
    }
    const owner = readOwner(ownerFile);
    // An owner file naming this process but not served here is stale (a previous process with the same pid).
    if (owner && owner.pid !== process.pid && processIsAlive(owner.pid)) {
      if (owner.port > 0 && owner.password) {
        const probe = await probePort(owner.port);
        if (probe === "serves") return attached(root, { port: owner.port, password: owner.password }, owner.pid);
        if (probe === "busy") {
          // Slow is not gone: taking the folder from a live owner would open its files a second time.
          if (Date.now() > deadline)
            throw new Error(`Process ${owner.pid} holds the embedded database in ${root} but its port does not answer`);
          continue;
        }
      }
      if (owner.port === 0) {
        // Claimed by a process still opening PGlite: wait for its port rather than open the files twice.
        if (Date.now() > deadline) {
          throw new Error(
            `Process ${owner.pid} holds the embedded database in ${root} but does not serve it; ` +
              `if that process is not this app, delete ${ownerFile}`,
          );
        }
        await sleep(250);
        continue;
      }
    }
    if (servedHere.has(root)) continue; // claimed in this process while we checked the port
    if (owner || fs.existsSync(ownerFile)) removeStaleOwner(ownerFile, owner);
    // Claim the data folder atomically before opening it: it must never be opened twice at once.
    if (!writeOwner(ownerFile, { pid: process.pid, port: 0 }, true)) {
      if (Date.now() > deadline) throw new Error(`Another process holds the embedded database in ${root}; could not attach to it`);
      await sleep(250);
      continue;
    }
    const serving = serveEmbedded(root, ownerFile);
    servedHere.set(
      root,
      serving.then(
        (served) => served.served,
        () => {
          servedHere.delete(root);
          return null;
        },
      ),
    );
    return (await serving).embedded;
  }
}

async function serveEmbedded(root: string, ownerFile: string): Promise<{ embedded: Embedded; served: Served }> {
  let db: PGlite | undefined;
  try {
    db = await PGlite.create({
      dataDir: path.join(root, "pglite"),
      startParams: pgliteStartParams(),
      pgliteWasmModule: await pgliteWasmModule(),
    });
    tightenDataDir(path.join(root, "pglite")); // the files it has just created are 0666
    const server = await serveOverSocket(db, { maxConnections: MAX_ATTACHED_CONNECTIONS, runtimePassword: newPassword() });
    const { port, runtime } = server;
    const password = runtime!.password;
    writeOwner(ownerFile, { pid: process.pid, port, password }, false);
    const opened = db;
    const embedded: Embedded = {
      url: runtime!.url,
      migratorUrl: server.url,
      description: `embedded PGlite in ${root}`,
      close: async () => {
        servedHere.delete(root);
        await server.stop();
        await opened.close();
        fs.rmSync(ownerFile, { force: true });
      },
    };
    return { embedded, served: { port, password } };
  } catch (error) {
    await db?.close().catch(() => {});
    fs.rmSync(ownerFile, { force: true });
    throw error;
  }
}
