/**
 * The container health check (server/healthcheck.ts) run as docker runs it: exit 0 healthy, 1 not, 2 for a
 * wrong role. Web: /api/live, which a database outage does not fail. Indexer: its /health on the operations
 * port (server/ops-server.ts), which fails while no pass has been APPLIED within the limit, however many
 * held-back passes keep coming. And the role, from the argument, SPOOKS_ROLE or the container's command.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../app/utils/logger.server.ts";
import { createSql, type Sql } from "../db/client.server.ts";
import { startTestServer, type TestServer } from "../tests/support/app-server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { detectRole } from "./health-role.ts";
import { startOpsServer, type OpsServer } from "./ops-server.ts";

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

async function closedPort(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = String((server.address() as net.AddressInfo).port);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("role detection", () => {
  const tini = (...command: string[]) => ["/usr/bin/tini", "--", ...command];
  it.each([
    ["the image's default command", tini("node", "build/node/start.js", "--no-indexer"), "web"],
    ["the compiled indexer", tini("node", "build/node/indexer.js"), "indexer"],
    ["the indexer from its sources", tini("node", "--import", "tsx", "indexer/main.ts"), "indexer"],
    ["the npm script", tini("npm", "run", "start:indexer"), "indexer"],
    ["a one-off CLI run about the indexer", tini("spooks-admin", "indexer", "sync"), "web"],
    ["no readable command", [], "web"],
  ])("%s: %s", (_, command, role) => {
    expect(detectRole(undefined, {}, command)).toBe(role);
  });

  it("the argument wins over SPOOKS_ROLE, which wins over the command; an unknown role is refused", () => {
    const indexerCommand = tini("node", "build/node/indexer.js");
    expect(detectRole(undefined, { SPOOKS_ROLE: "web" }, indexerCommand)).toBe("web");
    expect(detectRole("indexer", { SPOOKS_ROLE: "web" }, [])).toBe("indexer");
    expect(detectRole(undefined, { SPOOKS_ROLE: "worker" }, [])).toBeNull();
    expect(detectRole("everything", {}, [])).toBeNull();
  });
});

describe("healthcheck", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let serverSql: Sql;
  let ops: OpsServer;
  beforeAll(async () => {
    db = await createTestDatabase();
    serverSql = createSql(db.url, { max: 1 });
    server = await startTestServer({ sql: serverSql, adminAddress: "DCH3XaN5CcskGZuDqS14Sr6mnPQEPmvWh7" });
    ops = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      role: "indexer",
      version: "test",
      sql: db.sql,
      indexerStaleAfterSeconds: 600,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await ops?.close();
    await server?.close();
    await db?.close();
  });

  it("web: healthy while /api/live answers, unhealthy when nothing listens", async () => {
    const port = new URL(server.url).port;
    expect(await healthcheck([], { PORT: port })).toEqual({ code: 0, stderr: "" });
    expect(await healthcheck(["web"], { PORT: await closedPort() })).toEqual({ code: 1, stderr: "unhealthy (web): ECONNREFUSED" });
  });

  it("web: stays healthy when the server's database connection is gone (liveness, not readiness)", async () => {
    await serverSql.end();
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(503);
    expect(await healthcheck(["web"], { PORT: new URL(server.url).port })).toEqual({ code: 0, stderr: "" });
  });

  it("indexer: unhealthy until a pass is APPLIED within the limit; held-back passes do not count", async () => {
    const env = { METRICS_PORT: new URL(ops.url).port, SPOOKS_ROLE: "indexer" };
    expect(await healthcheck([], env)).toEqual({
      code: 1,
      stderr: "unhealthy (indexer): the indexer's /health answered 503: no ownership pass has been applied yet (limit 600 s)",
    });

    // An applied pass two hours ago, then the ord server down: passes keep coming, each held back.
    await db.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now() - interval '2 hours', now() - interval '2 hours', 0, 0, 0, 0)`;
    for (let i = 0; i < 3; i++) {
      await db.sql`
        insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors, state, reason)
        values ('scheduled', now(), now(), 0, 0, 0, 1, 'unavailable', 'ord server unavailable (network: ECONNREFUSED)')`;
    }
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the operations port reads the database at most once a second
    const outage = await healthcheck([], env);
    expect(outage.code).toBe(1);
    expect(outage.stderr).toMatch(
      /^unhealthy \(indexer\): the indexer's \/health answered 503: no ownership pass applied for 7\d{3} s \(limit 600 s\); 3 held back in a row, the last unavailable: ord server unavailable \(network: ECONNREFUSED\)$/,
    );

    await db.sql`
      insert into sync_runs (source, started_at, finished_at, items_checked, owners_changed, stakes_ended, errors)
      values ('scheduled', now(), now(), 0, 0, 0, 0)`;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await healthcheck(["indexer"], { METRICS_PORT: env.METRICS_PORT })).toEqual({ code: 0, stderr: "" });
  });

  it("indexer: unhealthy, saying so, without METRICS_PORT or when its port does not answer", async () => {
    expect(await healthcheck(["indexer"], {})).toEqual({
      code: 1,
      stderr: "unhealthy (indexer): METRICS_PORT is not set: the indexer answers its health on that port",
    });
    expect(await healthcheck(["indexer"], { METRICS_PORT: await closedPort() })).toEqual({
      code: 1,
      stderr: "unhealthy (indexer): ECONNREFUSED",
    });
  });

  it("refuses an unknown role with a usage line", async () => {
    const usage = "usage: healthcheck [web | indexer] (or SPOOKS_ROLE=web|indexer)";
    expect(await healthcheck(["everything"], {})).toEqual({ code: 2, stderr: usage });
    expect(await healthcheck([], { SPOOKS_ROLE: "worker" })).toEqual({ code: 2, stderr: usage });
  });
});
