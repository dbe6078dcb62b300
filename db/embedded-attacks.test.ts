/**
 * The embedded database against another local account without the password (issue 20): a real process
 * owns DATA_DIR, as `npm start` does, and the attacks come from real sockets. Before the fixes, 17 resets
 * crashed that process (ECONNRESET on a refused socket, unhandled) and 16 idle sockets left every later
 * client refused with 53300; PGlite's files were 0666.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../cli/testing/run-cli.ts";
import { startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";
import { openDatabase } from "./client.server.ts";

const FIXTURE = path.resolve(import.meta.dirname, "testing/serve-embedded.ts");

let dataDir: string;
let owner: ChildProcess;
const ownerLines: Record<string, unknown>[] = [];
let port: number;

/** Starts the owning process and resolves once it serves (its warnings are kept in `ownerLines`). */
function startOwner(): Promise<void> {
  owner = spawn(process.execPath, ["--import", "tsx", FIXTURE, dataDir], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let text = "";
    owner.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const lines = text.split("\n");
      text = lines.pop()!;
      for (const line of lines) {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        ownerLines.push(parsed);
        if (parsed.ready) resolve();
      }
    });
    owner.once("exit", (code) => reject(new Error(`the owning process exited (${code}) before serving`)));
  });
}

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {}); // the server may refuse or drop it: that is the point
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** A startup packet, after which the socket never answers the password request. */
function startupPacket(): Buffer {
  const body = Buffer.from("user\0postgres\0database\0postgres\0\0");
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

/** What another process does: attaches through the connection file and queries. */
async function attachedClientAnswers(): Promise<unknown> {
  const db = await openDatabase({ dataDir });
  try {
    return (await db.sql`select 41 + 1 as n`)[0];
  } finally {
    await db.close();
  }
}

function modesUnder(root: string): { path: string; mode: number; dir: boolean }[] {
  const entries = [{ path: root, mode: fs.statSync(root).mode & 0o777, dir: true }];
  for (const name of fs.readdirSync(root, { recursive: true }) as string[]) {
    const stat = fs.lstatSync(path.join(root, name));
    if (!stat.isSymbolicLink()) entries.push({ path: name, mode: stat.mode & 0o777, dir: stat.isDirectory() });
  }
  return entries;
}

beforeAll(async () => {
  // A DATA_DIR left open to everyone, with a file readable by everyone, before the first start.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-attack-"));
  fs.chmodSync(dataDir, 0o755);
  fs.mkdirSync(path.join(dataDir, "uploads"), { mode: 0o777 });
  fs.chmodSync(path.join(dataDir, "uploads"), 0o777);
  fs.writeFileSync(path.join(dataDir, "uploads", "left-open.png"), "x", { mode: 0o666 });
  fs.chmodSync(path.join(dataDir, "uploads", "left-open.png"), 0o666);
  await startOwner();
  port = (JSON.parse(fs.readFileSync(path.join(dataDir, "embedded.json"), "utf8")) as { port: number }).port;
}, 120_000);

afterAll(async () => {
  if (owner && owner.exitCode === null) {
    const exited = new Promise((resolve) => owner.once("exit", resolve));
    owner.kill("SIGTERM");
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the embedded database's files", () => {
  it("are owner-only once the owner has started (folders 0700, files 0600), with a warning that they were not", () => {
    const entries = modesUnder(dataDir);
    expect(entries.length).toBeGreaterThan(900); // PGlite's cluster is there, not only our files
    const open = entries.filter((entry) => entry.mode !== (entry.dir ? 0o700 : 0o600));
    expect(open).toEqual([]);
    const warnings = ownerLines.filter((line) => line.warning).map((line) => line.warning);
    expect(warnings).toEqual([expect.objectContaining({ msg: expect.stringMatching(/owner-only/), dataDir, widened: 3 })]);
  });
});

describe("the embedded database's socket under attack", () => {
  it(
    "keeps serving after 40 connections reset by the peer (17 crashed it before), the refused ones included",
    { timeout: 60_000 },
    async () => {
      const sockets = await Promise.all(Array.from({ length: 40 }, connect));
      // Some mid-authentication too: a reset then lands while the server is writing to them.
      for (const socket of sockets.slice(0, 10)) socket.write(startupPacket());
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const socket of sockets) socket.resetAndDestroy();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(owner.exitCode).toBeNull();
      expect(await attachedClientAnswers()).toEqual({ n: 42 });
    },
  );

  it(
    "leaves the CLI and the indexer working while 20 sockets sit idle without authenticating (16 locked everyone out before)",
    { timeout: 120_000 },
    async () => {
      const idle = await Promise.all(Array.from({ length: 20 }, connect));
      for (const socket of idle.slice(0, 10)) socket.write(startupPacket()); // stuck at the password request
      let chain: SimulatedChain | undefined;
      try {
        chain = await startSimulatedChain({ owners: new Map() });
        const env = cliEnv(undefined, { DATA_DIR: dataDir, ORD_URL: chain.url, INDEXER_RETRIES: "0" });
        const [users, sync] = await Promise.all([runCli(["users", "--json"], env), runCli(["indexer", "sync", "--json"], env)]);
        expect(users).toMatchObject({ code: 0, stderr: "" });
        expect(JSON.parse(users.stdout)).toEqual(expect.any(Array));
        expect(sync).toMatchObject({ code: 0, stderr: "" });
        expect(await attachedClientAnswers()).toEqual({ n: 42 });
        expect(owner.exitCode).toBeNull();
      } finally {
        for (const socket of idle) socket.destroy();
        await chain?.close();
      }
    },
  );
});
