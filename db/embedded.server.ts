/**
 * Embedded Postgres: PGlite kept in `<dataDir>/pglite`, served on a loopback port by pglite-socket.
 * The process that opens the files writes `<dataDir>/embedded.json` (pid, port); another process on the
 * same DATA_DIR attaches to that port rather than opening the files a second time. pglite-socket queues
 * queries and keeps a transaction's statements together, so attached clients are safe, but they share
 * one backend: advisory locks do not exclude between them.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export type Embedded = { url: string; description: string; close(): Promise<void> };

type Owner = { pid: number; port: number };

const MAX_ATTACHED_CONNECTIONS = 16;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
}

function readOwner(file: string): Owner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, "utf8")) as Owner;
    return Number.isInteger(owner.pid) && Number.isInteger(owner.port) ? owner : null;
  } catch {
    return null;
  }
}

function urlFor(port: number): string {
  return `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
}

export async function openEmbedded(dataDir: string): Promise<Embedded> {
  const root = path.resolve(dataDir);
  fs.mkdirSync(root, { recursive: true });
  const ownerFile = path.join(root, "embedded.json");

  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = readOwner(ownerFile);
    if (owner && owner.pid !== process.pid && isAlive(owner.pid) && (await portAnswers(owner.port))) {
      return {
        url: urlFor(owner.port),
        description: `embedded PGlite in ${root} (attached to process ${owner.pid})`,
        close: async () => {},
      };
    }
    if (owner || fs.existsSync(ownerFile)) fs.rmSync(ownerFile, { force: true });
    try {
      // Claim the data folder atomically before opening it: two processes must never open it at once.
      fs.writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, port: 0 }), { flag: "wx" });
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    return serveEmbedded(root, ownerFile);
  }
  throw new Error(`Another process holds the embedded database in ${root}; could not attach to it`);
}

async function serveEmbedded(root: string, ownerFile: string): Promise<Embedded> {
  let db: PGlite | undefined;
  try {
    db = await PGlite.create({ dataDir: path.join(root, "pglite") });
    const server = new PGLiteSocketServer({
      db,
      host: "127.0.0.1",
      port: 0,
      maxConnections: MAX_ATTACHED_CONNECTIONS,
    });
    await server.start();
    const port = Number(server.getServerConn().split(":").pop());
    fs.writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, port }));
    const opened = db;
    return {
      url: urlFor(port),
      description: `embedded PGlite in ${root}`,
      close: async () => {
        await server.stop();
        await opened.close();
        fs.rmSync(ownerFile, { force: true });
      },
    };
  } catch (error) {
    await db?.close().catch(() => {});
    fs.rmSync(ownerFile, { force: true });
    throw error;
  }
}
