/**
 * `npm start`'s process as an operator meets it: one clear line and exit 1 on bad configuration, and a
 * clean stop on SIGTERM (schedules stopped, requests finished, database closed) well within 10 s.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureAppBuild } from "../tests/support/app-server.ts";
import { series } from "../tests/support/metrics-text.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";

// Each test starts `npm start` under tsx (migrations, the demo data): 15-25 s on a loaded 2-core machine (stop 41's
// CI), near the suite's 30 s.
vi.setConfig({ testTimeout: 120_000 });

const ROOT = path.resolve(import.meta.dirname, "..");

type Run = { code: number | null; stdout: string; stderr: string };

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<Run>((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
  /** The URL the server logged as listening on (`"msg":"listening"`, or the operations port's). */
  const listening = async (msg = "listening"): Promise<string> => {
    const line = new RegExp(`"msg":"${msg}","url":"(http://[^"]+)"`);
    for (let i = 0; i < 600 && child.exitCode === null; i++) {
      const match = line.exec(stdout);
      if (match) return match[1];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`server did not start: ${stderr}`);
  };
  return { child, exited, listening };
}

describe("start-up refusals", () => {
  it.each([
    ["a malformed DATABASE_URL", { DATABASE_URL: "not a url" }, /^spooks: DATABASE_URL is not a valid URL/],
    [
      "an unreachable server",
      { DATABASE_URL: "postgres://postgres@127.0.0.1:1/x" },
      /^spooks: Cannot reach the database at 127\.0\.0\.1:1\/x/,
    ],
    ["production without ORD_URL", { NODE_ENV: "production" }, /^spooks: ORD_URL is not set: demo mode/],
    [
      "production without PUBLIC_URL",
      { NODE_ENV: "production", ORD_URL: "http://127.0.0.1:9", ADMIN_ADDRESS: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" },
      /^spooks: PUBLIC_URL is required with NODE_ENV=production/,
    ],
  ])("%s stops with one clear line and exit 1", async (_, env, line) => {
    const { exited } = startServer(env);
    const run = await exited;
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(line);
  });
});

/** A test database, the app's build and a data folder for the servers a describe block starts. */
function useServerFixtures() {
  const fixtures = {} as { db: Awaited<ReturnType<typeof createTestDatabase>>; buildDir: string; dataDir: string };
  beforeAll(async () => {
    [fixtures.db, fixtures.buildDir] = await Promise.all([createTestDatabase(), ensureAppBuild()]);
    fixtures.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-start-"));
  });
  afterAll(async () => {
    await fixtures.db?.close();
    fs.rmSync(fixtures.dataDir, { recursive: true, force: true });
  });
  return fixtures;
}

describe("SIGTERM", () => {
  const fixtures = useServerFixtures();

  it("serves, then stops cleanly within 10 s", async () => {
    const { db, dataDir, buildDir } = fixtures;
    const server = startServer({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      METRICS_PORT: "0",
      SPOOKS_BUILD_DIR: buildDir,
    });
    const url = await server.listening();
    const ops = await server.listening("operations port listening");
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    // Demo mode publishes its simulated chain for the CLI on the same DATA_DIR (`giveaways draw`), until it stops.
    const demoChainFile = path.join(dataDir, "demo-chain.json");
    const published = JSON.parse(fs.readFileSync(demoChainFile, "utf8")) as { url: string; pid: number };
    expect(published).toEqual({ url: expect.stringMatching(/^http:\/\/[\w.[\]:]+:\d+\/?$/), pid: server.child.pid });
    for (let i = 0; i < 100; i++) {
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from sync_runs`;
      if (row.n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A request really in flight: it reached the server (its operations port counts it) and waits on a lock this
    // test holds, so SIGTERM arrives while it runs (not while its connection still sits in the kernel's accept queue).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.sql.begin(async (tx) => {
      await tx`lock table balances in access exclusive mode`;
      locked();
      await released;
    });
    await lockHeld;
    const inFlight = fetch(`${url}/api/leaderboard`);
    const requestsInFlight = async () => series(await (await fetch(`${ops}/metrics`)).text(), "spooks_http_requests_in_flight");
    await expect.poll(requestsInFlight).toBe(1);
    const stoppedAt = Date.now();
    server.child.kill("SIGTERM");
    setTimeout(release, 500);
    await holder;
    const run = await server.exited;
    expect(run.code).toBe(0);
    expect((await inFlight).status).toBe(200);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(run.stdout).toContain('"msg":"shutting down","signal":"SIGTERM"');
    const [items] = await db.sql<{ n: number }[]>`select count(*)::int as n from items`;
    expect(items.n).toBe(888 + 995);
    expect(fs.existsSync(demoChainFile)).toBe(false);
  });
});

describe("the database role at start", () => {
  const fixtures = useServerFixtures();

  const roleWarnings = (stdout: string) =>
    stdout
      .split("\n")
      .filter((line) => line.includes("DATABASE_URL's role"))
      .map((line) => JSON.parse(line) as { level: string; msg: string });

  async function startAndStop(env: Record<string, string>): Promise<Run> {
    const { dataDir, buildDir } = fixtures;
    const server = startServer({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", SPOOKS_BUILD_DIR: buildDir, ...env });
    const url = await server.listening();
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    server.child.kill("SIGTERM");
    return server.exited;
  }

  it("warns once when the app runs as the superuser that migrates (MIGRATE_DATABASE_URL unset)", async () => {
    const run = await startAndStop({ DATABASE_URL: fixtures.db.owner.url });
    expect(roleWarnings(run.stdout)).toEqual([
      expect.objectContaining({ level: "warn", msg: expect.stringMatching(/is a superuser: .*set MIGRATE_DATABASE_URL to the owner/) }),
    ]);
  });

  it("says nothing when it runs as the runtime role and migrates as MIGRATE_DATABASE_URL", async () => {
    const run = await startAndStop({ DATABASE_URL: fixtures.db.url, MIGRATE_DATABASE_URL: fixtures.db.owner.url });
    expect(run.code).toBe(0);
    expect(roleWarnings(run.stdout)).toEqual([]);
  });
});
