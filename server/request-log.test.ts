/**
 * The web server's log as an operator reads it: the real `server/start.ts` process, its stdout parsed line
 * by line. One JSON line per request (id, method, path, status, duration), the id answered in
 * X-Request-Id, no secrets, unexpected errors with their stack and the request's id, static files not
 * logged, and LOG_LEVEL=warn keeping only the failures.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { importCatalogue } from "../db/queries/catalogue.server.ts";
import { newWallet } from "../tests/api/support.ts";
import { ensureAppBuild } from "../tests/support/app-server.ts";
import { freePort, sleep } from "../tests/support/net.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type LogLine = Record<string, unknown> & { level: string; msg: string; reqId?: string; err?: { message: string; stack: string } };
type Server = { url: string; child: ChildProcess; stdout: () => string; lines: () => LogLine[]; stop: () => Promise<void> };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let buildDir: string;
let dataDir: string;

// Generous: the first file to need the current sources' build makes it.
beforeAll(async () => {
  [db, buildDir] = await Promise.all([createTestDatabase(), ensureAppBuild()]);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-request-log-"));
}, 300_000);
afterAll(async () => {
  await db?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The web server alone (no indexer, not demo mode), logging JSON to a pipe as in production. */
async function startServer(logLevel: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts", "--no-indexer"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: logLevel,
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      SPOOKS_BUILD_DIR: buildDir,
      ORD_URL: "http://127.0.0.1:9",
      ADMIN_ADDRESS: newWallet().address,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i === 600) throw new Error(`the server did not start:\n${stdout}\n${stderr}`);
    if (
      await fetch(`${url}/api/health`).then(
        (answer) => answer.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  // Every line on stdout is one JSON object (JSON.parse throws otherwise).
  const lines = () =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);
  return { url, child, stdout: () => stdout, lines, stop: () => (child.kill("SIGTERM"), exited) };
}

/** The lines logged for one request, once its request line is out (written when the answer has ended). */
async function linesOf(server: Server, reqId: string): Promise<LogLine[]> {
  for (let i = 0; i < 50; i++) {
    const lines = server.lines().filter((line) => line.reqId === reqId);
    if (lines.some((line) => line.msg.startsWith("request "))) return lines;
    await sleep(100);
  }
  throw new Error(`no request line for ${reqId}:\n${server.stdout()}`);
}

/** Runs `work` while the table is missing: the database answers, but not as the code expects. */
async function withoutTable<T>(table: string, work: () => Promise<T>): Promise<T> {
  await db.owner.sql.unsafe(`alter table ${table} rename to ${table}_away`);
  try {
    return await work();
  } finally {
    await db.owner.sql.unsafe(`alter table ${table}_away rename to ${table}`);
  }
}

describe("at LOG_LEVEL=info", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer("info");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("logs one JSON line per request: its id (answered in X-Request-Id), method, path without query, status, duration", async () => {
    const answer = await fetch(`${server.url}/api/leaderboard?limit=5&_t=1730390400000`);
    expect(answer.status).toBe(200);
    const reqId = answer.headers.get("x-request-id")!;
    expect(reqId).toMatch(UUID);
    expect(await linesOf(server, reqId)).toEqual([
      {
        level: "info",
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        pid: server.child.pid,
        hostname: os.hostname(),
        service: "web",
        reqId,
        method: "GET",
        path: "/api/leaderboard",
        status: 200,
        durationMs: expect.any(Number),
        ip: "127.0.0.1",
        msg: "request completed",
      },
    ]);

    const page = await fetch(`${server.url}/rewards`);
    const missing = await fetch(`${server.url}/api/no-such-route`);
    expect([page.status, missing.status]).toEqual([200, 404]);
    expect(await linesOf(server, page.headers.get("x-request-id")!)).toMatchObject([
      { level: "info", method: "GET", path: "/rewards", status: 200 },
    ]);
    expect(await linesOf(server, missing.headers.get("x-request-id")!)).toMatchObject([
      { level: "info", path: "/api/no-such-route", status: 404 },
    ]);
  });

  it("takes a sane X-Request-Id from the caller (a proxy's) and answers it; anything else gets a new id", async () => {
    const sane = await fetch(`${server.url}/api/health`, { headers: { "X-Request-Id": "edge-7f3a:0001" } });
    expect(sane.headers.get("x-request-id")).toBe("edge-7f3a:0001");
    expect(await linesOf(server, "edge-7f3a:0001")).toMatchObject([{ path: "/api/health", status: 200 }]);

    for (const insane of ['"><script>alert(1)</script>', "x".repeat(129), "two words"]) {
      const answer = await fetch(`${server.url}/api/health`, { headers: { "X-Request-Id": insane } });
      const reqId = answer.headers.get("x-request-id")!;
      expect(reqId).toMatch(UUID);
      expect(await linesOf(server, reqId)).toHaveLength(1);
      expect(server.stdout()).not.toContain(insane);
    }
  });

  it("logs no cookie, signature, signed message, body or header", async () => {
    const wallet = newWallet();
    const message = `Staking Spook #5 for Spook Points. Timestamp: ${new Date().toISOString()}`;
    const signature = wallet.sign(message);
    const cookie = "spooks_session=cookie-value-never-logged";
    const answer = await fetch(`${server.url}/api/stake`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: cookie, "User-Agent": "agent-never-logged", Origin: server.url },
      body: JSON.stringify({ address: wallet.address, inscriptionId: `${"ab".repeat(32)}i0`, message, signature }),
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    const [line] = await linesOf(server, answer.headers.get("x-request-id")!);
    expect(line).toMatchObject({ level: "info", method: "POST", path: "/api/stake", status: answer.status });
    for (const secret of [signature, message, "cookie-value-never-logged", "agent-never-logged", wallet.address]) {
      expect(server.stdout()).not.toContain(secret);
    }
  });

  it("logs the route pattern and a short hash in place of a secret path segment (issue 32, item 6)", async () => {
    const token = "Zk3s9QwErTyUiOpAsDfGhJkLzXcVbNm1234567890_-";
    const linkToken = "q3Hk9vT2mZp8Lw4Rx7Nc1Ys5Bd6Fg0JaXYZ";
    const hash = createHash("sha256").update(token).digest("hex").slice(0, 12);
    for (const [target, logged] of [
      [`/api/notifications/email/confirm/${token}`, `/api/notifications/email/confirm/{token:${hash}}`],
      [`/api/notifications/email/unsubscribe/${token}`, `/api/notifications/email/unsubscribe/{token:${hash}}`],
      [`/API/notifications/email/%75nsubscribe/${token}/`, `/api/notifications/email/unsubscribe/{token:${hash}}`],
      [
        `/api/discord/pending/${linkToken}`,
        `/api/discord/pending/{linkToken:${createHash("sha256").update(linkToken).digest("hex").slice(0, 12)}}`,
      ],
      [`/discord/linked?token=${linkToken}`, "/discord/linked"],
    ]) {
      const answer = await fetch(`${server.url}${target}`);
      const [line] = await linesOf(server, answer.headers.get("x-request-id")!);
      expect(line.path, target).toBe(logged);
    }
    expect(server.stdout()).not.toContain(token);
    expect(server.stdout()).not.toContain(linkToken);
  });

  it("does not log static files", async () => {
    const asset = fs.readdirSync(path.join(buildDir, "client/assets")).find((name) => name.endsWith(".js"))!;
    const answer = await fetch(`${server.url}/assets/${asset}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-request-id")).toBeNull();
    const marker = await fetch(`${server.url}/api/health`); // logged after the asset, if the asset were
    await linesOf(server, marker.headers.get("x-request-id")!);
    expect(server.lines().filter((line) => String(line.path).startsWith("/assets/"))).toEqual([]);
  });

  it("logs an unexpected API error with its stack and the request's id, and the request line as an error", async () => {
    const answer = await withoutTable("hot_reads_head", () => fetch(`${server.url}/api/leaderboard`));
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ message: "Internal server error" });
    const reqId = answer.headers.get("x-request-id")!;
    const lines = await linesOf(server, reqId);
    expect(lines).toEqual([
      expect.objectContaining({
        level: "error",
        service: "web",
        reqId,
        msg: "unexpected API error",
        method: "GET",
        path: "/api/leaderboard",
      }),
      expect.objectContaining({ level: "error", reqId, msg: "request failed", path: "/api/leaderboard", status: 500 }),
    ]);
    const { err } = lines[0];
    expect(err?.message).toMatch(/relation "hot_reads_head" does not exist/);
    expect(err?.stack).toMatch(/\n\s+at /);
  });

  it("logs a dependency's failure (the ord server down behind /content: 502) as a warning, not an error", async () => {
    const [item] = demoCatalogue().slice(0, 1);
    await importCatalogue(db.sql, [item]);
    const answer = await fetch(`${server.url}/content/${item.inscriptionId}`);
    expect(answer.status).toBe(502);
    const lines = await linesOf(server, answer.headers.get("x-request-id")!);
    expect(lines.at(-1)).toMatchObject({ level: "warn", path: `/content/${item.inscriptionId}`, status: 502 });
  });

  it("logs a page's failing loader with its stack and the request's id", async () => {
    const answer = await withoutTable("proposals", () => fetch(`${server.url}/governance`));
    expect(answer.status).toBe(500);
    const reqId = answer.headers.get("x-request-id")!;
    const lines = await linesOf(server, reqId);
    expect(lines).toEqual([
      expect.objectContaining({ level: "error", reqId, msg: "page error", method: "GET", path: "/governance" }),
      expect.objectContaining({ level: "error", reqId, msg: "request failed", status: 500 }),
    ]);
    const { err } = lines[0];
    expect(err?.message).toMatch(/relation "proposals" does not exist/);
    expect(err?.stack).toMatch(/\n\s+at /);
  });
});

describe("at LOG_LEVEL=warn", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer("warn");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("logs no request line for a good answer, but still the failures", async () => {
    const good = await fetch(`${server.url}/api/leaderboard`);
    const failed = await withoutTable("hot_reads_head", () => fetch(`${server.url}/api/leaderboard`));
    expect([good.status, failed.status]).toEqual([200, 500]);
    expect((await linesOf(server, failed.headers.get("x-request-id")!)).map((line) => [line.level, line.msg])).toEqual([
      ["error", "unexpected API error"],
      ["error", "request failed"],
    ]);
    expect(server.lines().filter((line) => line.level === "info")).toEqual([]);
    expect(server.lines().filter((line) => line.reqId === good.headers.get("x-request-id"))).toEqual([]);
  });
});
