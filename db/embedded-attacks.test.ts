/**
 * The embedded database against another local account without the password (issue 20): a real process
 * owns DATA_DIR, as `npm start` does, and the attacks come from real sockets. Before the fixes, 17 resets
 * crashed that process (ECONNRESET on a refused socket, unhandled) and 16 idle sockets left every later
 * client refused with 53300; PGlite's files were 0666. Then (issue 23) a flood of 1,000 unauthenticated
 * connections a second let only 2 to 10 of 12 logins with the password and 6 to 9 of 20 CLI calls in.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, runCli } from "../cli/testing/run-cli.ts";
import { startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";
import { createSql, openDatabase } from "./client.server.ts";
import { connectionUrl } from "./pglite-socket.server.ts";
import { RUNTIME_ROLE } from "./roles.server.ts";
import type { FloodStats } from "./testing/flood-embedded.ts";
import { startupPacket } from "./testing/wire.ts";

const FIXTURE = path.resolve(import.meta.dirname, "testing/serve-embedded.ts");
const FLOOD = path.resolve(import.meta.dirname, "testing/flood-embedded.ts");

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

/** A login as another of this app's processes makes it: the password from the connection file, one query. */
async function login(url: string): Promise<{ ok: boolean; ms: number; error?: string }> {
  const started = performance.now();
  const sql = createSql(url, { max: 1 });
  try {
    await sql`select 1`;
    return { ok: true, ms: performance.now() - started };
  } catch (error) {
    return { ok: false, ms: performance.now() - started, error: `${(error as { code?: string }).code}: ${(error as Error).message}` };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function logins(url: string, count: number) {
  const results = [];
  for (let i = 0; i < count; i += 1) results.push(await login(url));
  return results;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs `tasks` with at most `width` at once, in order. */
async function inTurns<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/**
 * Floods the owner's port from another process (db/testing/flood-embedded.ts: 127.0.0.1 only, at most 300 s
 * and 300 × `perSecond` connections, then it stops by itself); `started` resolves with the time it began (the
 * child's own start takes a second or more on a loaded machine); `stop()` ends it early and resolves with its figures.
 */
function startFlood(perSecond: number): { started: Promise<number>; stop(): Promise<FloodStats> } {
  const child = spawn(process.execPath, ["--import", "tsx", FLOOD, String(port), "300", String(perSecond)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const started = new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.startsWith("flooding\n")) resolve(Date.now());
    });
    child.once("exit", (code) => reject(new Error(`the flood ended before it began (exit ${code})`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    started,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
      return JSON.parse(out.slice(out.indexOf("\n") + 1)) as FloodStats;
    },
  };
}

describe("the embedded database's socket under a connection flood", () => {
  it(
    "lets every login with the password and every CLI call in during a 10 s flood of 1,000 unauthenticated connections a second (2 to 10 of 12 logins and 6 to 9 of 20 CLI calls got in before)",
    { timeout: 400_000 },
    async () => {
      const { password } = JSON.parse(fs.readFileSync(path.join(dataDir, "embedded.json"), "utf8")) as { password: string };
      const url = connectionUrl(port, password, RUNTIME_ROLE);
      const alone = await logins(url, 12);
      expect(alone.filter((result) => !result.ok)).toEqual([]);

      // A client that authenticated before the flood keeps its slot and its turns throughout.
      const resident = createSql(url, { max: 1 });
      await resident`select 1`;
      const residentAnswers: unknown[] = [];
      let flooding = true;
      const residentLoop = (async () => {
        while (flooding) {
          residentAnswers.push(
            await resident`select 2 as n`.then(
              ([row]) => row.n as number,
              (error: Error) => error.message,
            ),
          );
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();
      const env = cliEnv(undefined, { DATA_DIR: dataDir });
      const commands = [
        ["audit", "--json"],
        ["giveaways", "list", "--json"],
        ["users", "--json"],
      ];

      const flood = startFlood(1000);
      try {
        const floodStarted = await flood.started;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the flood is at full rate
        const underFlood = await logins(url, 12);
        const cli = await inTurns(
          Array.from({ length: 20 }, (_, i) => () => runCli(commands[i % commands.length], env, { timeoutMs: 60_000 })),
          4,
        );
        // The flood went on for at least 10 s, and through every call.
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, floodStarted + 10_000 - Date.now())));
        const stats = await flood.stop();
        flooding = false;
        await residentLoop;

        const aloneMs = median(alone.map((result) => result.ms));
        const underFloodMs = median(underFlood.map((result) => result.ms));
        console.log(
          `logins alone: median ${aloneMs.toFixed(0)} ms; under the flood: ${underFlood.filter((r) => r.ok).length}/12 in, ` +
            `median ${underFloodMs.toFixed(0)} ms; CLI ${cli.filter((r) => r.code === 0).length}/20; ` +
            `flood: ${stats.opened} connections in ${stats.seconds.toFixed(1)} s, ended by ${JSON.stringify(stats.endedBy)}`,
        );
        // It was a flood through every call, filling the pending slots (1,024) again and again. (On a loaded
        // machine the owner accepts fewer than the 1,000 a second asked for: the flood waits for it.)
        expect(stats.stoppedBy).toBe("signal");
        expect(stats.seconds).toBeGreaterThanOrEqual(10);
        expect(stats.opened).toBeGreaterThan(5000);
        expect(stats.endedBy["sorry, too many clients authenticating"]).toBeGreaterThan(2000);

        expect(underFlood.filter((result) => !result.ok)).toEqual([]);
        expect(cli.filter((result) => result.code !== 0)).toEqual([]);
        // Promptly, too (a dropped connect would cost its 1 s retransmit): generous for a loaded machine.
        expect(underFloodMs).toBeLessThan(Math.max(1000, 20 * aloneMs));
        expect(residentAnswers.length).toBeGreaterThan(4);
        expect(residentAnswers.filter((n) => n !== 2)).toEqual([]);
        expect(owner.exitCode).toBeNull();
      } finally {
        flooding = false;
        await flood.stop().catch(() => {});
        await resident.end({ timeout: 1 });
      }
    },
  );
});
