import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql, DatabaseConfigError, describeUrl, openDatabase, type Database } from "./client.server.ts";
import { openEmbedded } from "./embedded.server.ts";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-client-test-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function openError(databaseUrl: string): Promise<Error> {
  return openDatabase({ databaseUrl, dataDir: path.join(tmp, "unused") }).then(
    async (db) => {
      await db.close();
      throw new Error(`opened ${databaseUrl}`);
    },
    (error: Error) => error,
  );
}

describe("openDatabase with a bad DATABASE_URL", () => {
  it.each([
    ["not a URL", "not a url", /^DATABASE_URL is not a valid URL \(expected postgres:\/\/user:pass@host:port\/db\)$/],
    ["a bare host", "localhost:5432", /DATABASE_URL must start with postgres:\/\//],
    ["another scheme", "mysql://root@localhost/db", /^DATABASE_URL must start with postgres:\/\/ \(got mysql:\/\/\)$/],
  ])("refuses %s with a DatabaseConfigError saying what is wrong", async (_, url, message) => {
    const error = await openError(url);
    expect(error).toBeInstanceOf(DatabaseConfigError);
    expect(error.message).toMatch(message);
  });

  it("says it cannot reach an unreachable server, quickly, without the password", async () => {
    const started = Date.now();
    const error = await openError("postgres://postgres:s3cret@127.0.0.1:1/spooks");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toBeInstanceOf(DatabaseConfigError);
    expect(error.message).toMatch(/^Cannot reach the database at 127\.0\.0\.1:1\/spooks: ECONNREFUSED$/);
    expect(error.message).not.toContain("s3cret");
    expect(error.message.split("\n")).toHaveLength(1);
  });

  it("describes a URL without its credentials", () => {
    expect(describeUrl("postgres://user:pw@db.example:6543/spooks?sslmode=require")).toBe("db.example:6543/spooks");
    expect(describeUrl("postgresql://db.example/spooks")).toBe("db.example:5432/spooks");
  });
});

describe("embedded mode (no DATABASE_URL)", () => {
  // Two cold PGlite starts (about 3 s each on an idle machine); generous for a loaded CI box.
  it("creates the data folder, lets a second open attach to the first, and keeps the data after closing", { timeout: 60_000 }, async () => {
    const dataDir = path.join(tmp, "nested", "data");
    expect(fs.existsSync(dataDir)).toBe(false);

    const first = await openDatabase({ dataDir });
    let second: Database | undefined;
    try {
      expect(first.engine).toBe("pglite");
      expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(true);
      expect(first.description).toContain(path.resolve(dataDir));
      expect(first.description).not.toMatch(/attached/);
      // The connection file holds the socket's password, readable by its owner only; without it the
      // port refuses any local process.
      const connectionFile = path.join(dataDir, "embedded.json");
      expect(fs.statSync(connectionFile).mode & 0o777).toBe(0o600);
      const { port, password } = JSON.parse(fs.readFileSync(connectionFile, "utf8")) as { port: number; password: string };
      expect(password).toMatch(/^[0-9a-f]{48}$/);
      const intruder = createSql(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1 });
      await expect(intruder`select 1`).rejects.toMatchObject({ code: "28P01" });
      await intruder.end();
      // Its connections act as the runtime role, which may not change the schema; the owner login (in memory,
      // for migrations) may.
      await expect(first.sql`create table notes (id integer primary key, body text not null)`).rejects.toMatchObject({ code: "42501" });
      const owner = createSql(first.migratorUrl!, { max: 1 });
      await owner`create table notes (id integer primary key, body text not null)`;
      await owner`grant select, insert on notes to spooks_runtime`;
      await owner.end();
      await first.sql`insert into notes values (1, 'written by the first')`;

      second = await openDatabase({ dataDir });
      expect(second.engine).toBe("pglite");
      expect(second.description).toMatch(/attached/);
      expect(await second.sql`select body from notes`).toEqual([{ body: "written by the first" }]);
      await second.sql`insert into notes values (2, 'written by the second')`;
      // An attached process gets the runtime login too, and no way back to the superuser.
      await second.sql.unsafe("reset role").catch(() => {});
      await expect(second.sql`drop table notes`).rejects.toMatchObject({ code: "42501" });
      expect((await first.sql`select id from notes order by id`).map((row) => row.id)).toEqual([1, 2]);
    } finally {
      await second?.close();
      await first.close();
    }
    expect(fs.existsSync(path.join(dataDir, "embedded.json"))).toBe(false);

    // A stale owner file left by a crashed process (here: one that had this pid) is not attached to.
    fs.writeFileSync(path.join(dataDir, "embedded.json"), JSON.stringify({ pid: process.pid, port: 1 }));
    // Two opens at once in one process: one serves the folder, the other waits for it and attaches.
    const opened = await Promise.allSettled([openDatabase({ dataDir }), openDatabase({ dataDir })]);
    const [owner, attachedOne] = opened.map((result) => (result.status === "fulfilled" ? result.value : undefined));
    try {
      expect(opened.map((result) => result.status)).toEqual(["fulfilled", "fulfilled"]);
      expect(owner?.description).not.toMatch(/attached/);
      expect(attachedOne?.description).toMatch(/attached/);
      for (const db of [owner, attachedOne]) {
        expect((await db!.sql`select id, body from notes order by id`).map((row) => row.body)).toEqual([
          "written by the first",
          "written by the second",
        ]);
      }
    } finally {
      await attachedOne?.close();
      await owner?.close();
    }
  });
});

describe("embedded owner file", () => {
  it("waits for another live process that has claimed the folder and attaches once it publishes its port", async () => {
    const dataDir = path.join(tmp, "starting");
    fs.mkdirSync(dataDir, { recursive: true });
    const ownerFile = path.join(dataDir, "embedded.json");
    // The test runner's parent process stands in for another app process still opening PGlite.
    const otherPid = process.ppid;
    fs.writeFileSync(ownerFile, JSON.stringify({ pid: otherPid, port: 0 }));
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    const published = setTimeout(() => fs.writeFileSync(ownerFile, JSON.stringify({ pid: otherPid, port, password: "p4ss" })), 600);
    try {
      const embedded = await openEmbedded(dataDir);
      expect(embedded.description).toBe(`embedded PGlite in ${path.resolve(dataDir)} (attached to process ${otherPid})`);
      expect(new URL(embedded.url).port).toBe(String(port));
      expect(new URL(embedded.url).password).toBe("p4ss");
      await embedded.close();
      expect(JSON.parse(fs.readFileSync(ownerFile, "utf8"))).toEqual({ pid: otherPid, port, password: "p4ss" });
      expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(false);
    } finally {
      clearTimeout(published);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/**
 * A process that listens on a port and never accepts (its event loop blocked), with its accept queue full:
 * a connection to it neither succeeds nor is refused, as with an owner too busy to accept (a flood).
 */
async function startBusyListener(): Promise<{ pid: number; port: number; fill: net.Socket[]; stop(): void }> {
  // Writing to a pipe is synchronous on Linux: the port is out before the loop blocks, and nothing is accepted.
  const script = `const server = require("node:net").createServer();
server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
  process.stdout.write(server.address().port + "\\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString()))));
  const fill = Array.from({ length: 4 }, () => net.connect(port, "127.0.0.1").on("error", () => {}));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    pid: child.pid!,
    port,
    fill,
    stop: () => {
      for (const socket of fill) socket.destroy();
      child.kill("SIGKILL");
    },
  };
}

describe("embedded owner under load", () => {
  it(
    "never takes the folder from a live owner whose port is slow to answer (opening its files twice); does once it is gone",
    { timeout: 60_000 },
    async () => {
      const dataDir = path.join(tmp, "busy-owner");
      fs.mkdirSync(dataDir, { recursive: true });
      const ownerFile = path.join(dataDir, "embedded.json");
      const busy = await startBusyListener();
      const claim = { pid: busy.pid, port: busy.port, password: "p4ss" };
      fs.writeFileSync(ownerFile, JSON.stringify(claim));
      let settled = false;
      const opening = openEmbedded(dataDir).finally(() => (settled = true));
      try {
        // Before, the 1 s probe timed out, the owner was judged gone and PGlite opened here at once.
        await new Promise((resolve) => setTimeout(resolve, 3500));
        expect(settled).toBe(false);
        expect(JSON.parse(fs.readFileSync(ownerFile, "utf8"))).toEqual(claim);
        expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(false);
      } finally {
        busy.stop();
      }
      // Its owner gone, the folder is taken over and served here.
      const embedded = await opening;
      try {
        expect(embedded.description).toBe(`embedded PGlite in ${path.resolve(dataDir)}`);
        expect(JSON.parse(fs.readFileSync(ownerFile, "utf8"))).toMatchObject({ pid: process.pid });
      } finally {
        await embedded.close();
      }
    },
  );
});
