/** The container health checks (server/healthcheck.ts) run as docker runs them: exit 0 healthy, 1 not. */
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql, type Sql } from "../db/client.server.ts";
import { startTestServer, type TestServer } from "../tests/support/app-server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

function healthcheck(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/healthcheck.ts", ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stderr: stderr.trim() }));
  });
}

describe("healthcheck", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let serverSql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase();
    serverSql = createSql(db.url, { max: 1 });
    server = await startTestServer({ sql: serverSql, adminAddress: "DCH3XaN5CcskGZuDqS14Sr6mnPQEPmvWh7" });
  });
  afterAll(async () => {
    await server?.close();
    await db?.close();
  });

  it("web: healthy while /api/health answers 200, unhealthy when nothing listens", async () => {
    const port = new URL(server.url).port;
    expect(await healthcheck([], { PORT: port })).toEqual({ code: 0, stderr: "" });

    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = String((closed.address() as net.AddressInfo).port);
    await new Promise((resolve) => closed.close(resolve));
    expect(await healthcheck(["web"], { PORT: closedPort })).toEqual({ code: 1, stderr: "unhealthy: ECONNREFUSED" });
  });

  it("web: unhealthy, saying why, once the server's database connection is gone", async () => {
    await serverSql.end();
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: false, database: "unreachable", indexer: null, message: "The database is unreachable" });
    expect(await healthcheck([], { PORT: new URL(server.url).port })).toEqual({
      code: 1,
      stderr: "unhealthy: /api/health answered 503: The database is unreachable",
    });
  });

  it("indexer: healthy only when a pass finished within the limit", async () => {
    const env = { DATABASE_URL: db.url };
    expect(await healthcheck(["indexer"], env)).toEqual({ code: 1, stderr: "unhealthy: no ownership pass recorded yet" });

    await db.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now() - interval '2 hours', now() - interval '2 hours', 0, 0, 0, 0)`;
    const stale = await healthcheck(["indexer", "600"], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^unhealthy: the last ownership pass finished 7\d{3} s ago \(limit 600 s\)$/);

    await db.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now(), now(), 0, 0, 0, 0)`;
    expect(await healthcheck(["indexer", "600"], env)).toEqual({ code: 0, stderr: "" });
  });

  it("refuses an unknown mode with a usage line", async () => {
    expect(await healthcheck(["everything"], {})).toEqual({ code: 2, stderr: "usage: healthcheck.ts [web | indexer [SECONDS]]" });
  });
});
