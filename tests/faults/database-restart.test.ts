/**
 * The web server (a real `server/start.ts` process, NODE_ENV=production) across a PostgreSQL outage, on a
 * throwaway cluster this file creates with Debian's PostgreSQL binaries (skipped when there are none):
 * - while the database is down, API requests answer 503 with a `message`, pages 503, /api/health 503
 *   naming the database, and none takes 10 s;
 * - once it is back, requests succeed again within 10 s, with nothing lost;
 * - a `pg_ctl restart` under a steady stream of requests gives only 200s and 503s, never a 500 or a hang.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressFromPublicKey } from "../../app/domain/address.ts";
import { createSql, type Sql } from "../../db/client.server.ts";
import { migrate } from "../../db/migrate.server.ts";
import { addPoints } from "../../db/queries/points.server.ts";
import { ensureAppBuild } from "../support/app-server.ts";
import { freePort } from "../support/net.ts";
import { PG_BIN, startCluster, type Cluster } from "../support/pg-cluster.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

type Answer = { status: number; body: Record<string, unknown> | null; ms: number };

async function get(url: string): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: body stays null, and any assertion on it says so.
  }
  return { status: response.status, body, ms: Date.now() - started };
}

const ADDRESS = addressFromPublicKey(new Uint8Array(33).fill(7));

describe.skipIf(!PG_BIN)("PostgreSQL restarted under the web server", () => {
  let cluster: Cluster;
  let dataDir: string;
  let web: ChildProcess;
  let base: string;
  let sql: Sql;
  let output = "";
  const ctl = (action: "start" | "stop" | "restart") => cluster.ctl(action);

  beforeAll(async () => {
    cluster = await startCluster();
    dataDir = fs.mkdtempSync(path.join(cluster.dir, "web-"));
    const databaseUrl = cluster.url();
    sql = createSql(databaseUrl, { max: 2 });
    await migrate(sql);
    await addPoints(sql, { address: ADDRESS, points: 5, description: "before the outage", actor: { kind: "cli" } });

    const [buildDir, webPort] = await Promise.all([ensureAppBuild(), freePort()]);
    base = `http://127.0.0.1:${webPort}`;
    web = spawn(process.execPath, ["--import", "tsx", "server/start.ts", "--no-indexer"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        DATABASE_URL: databaseUrl,
        PUBLIC_URL: base,
        ORD_URL: "http://127.0.0.1:9",
        ADMIN_ADDRESS: ADDRESS,
        HOST: "127.0.0.1",
        PORT: String(webPort),
        DATA_DIR: dataDir,
        SPOOKS_BUILD_DIR: buildDir,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    web.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    web.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    for (let i = 0; i < 600 && web.exitCode === null && !output.includes('"msg":"listening"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!output.includes('"msg":"listening"')) throw new Error(`the web server did not start:\n${output}`);
  }, 120_000);

  afterAll(async () => {
    web?.kill("SIGKILL");
    await sql?.end({ timeout: 1 }).catch(() => {});
    await cluster?.destroy();
  });

  const points = async () => {
    const answer = await get(`${base}/api/leaderboard`);
    expect(answer.status).toBe(200);
    const rows = JSON.stringify(answer.body);
    return rows.includes(ADDRESS) ? answer : null;
  };

  it("answers 503 with a message while the database is down, and recovers within 10 s once it is back", async () => {
    expect((await get(`${base}/api/health`)).status).toBe(200);
    expect(await points()).not.toBeNull();

    await ctl("stop");
    const api = await get(`${base}/api/leaderboard`);
    expect(api.status).toBe(503);
    expect(api.body).toEqual({ message: expect.stringMatching(/database is unavailable/) });
    expect(api.ms).toBeLessThan(10_000);

    const health = await get(`${base}/api/health`);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ok: false, database: "unreachable", message: "The database is unreachable" });
    expect(health.ms).toBeLessThan(10_000);

    const page = await get(`${base}/governance`);
    expect(page.status).toBe(503);
    expect(page.ms).toBeLessThan(10_000);

    await ctl("start");
    const back = Date.now();
    let first: Answer | null = null;
    while (Date.now() - back < 10_000) {
      const answer = await get(`${base}/api/leaderboard`);
      if (answer.status === 200) {
        first = answer;
        break;
      }
      expect(answer.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const recoveredMs = Date.now() - back;
    console.log(`database back → first successful request: ${recoveredMs} ms`);
    expect(first).not.toBeNull();
    expect(JSON.stringify(first!.body)).toContain(ADDRESS); // nothing lost
    expect((await get(`${base}/api/health`)).status).toBe(200);
    expect((await get(`${base}/governance`)).status).toBe(200);
  });

  it("gives only 200s and 503s, none slower than 10 s, through a pg_ctl restart under load", async () => {
    const answers: Answer[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        answers.push(await get(`${base}/api/leaderboard`));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await ctl("restart");
    const back = Date.now();
    const answeredBefore = answers.length;
    let recoveredMs: number | null = null;
    while (recoveredMs === null && Date.now() - back < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (answers.slice(answeredBefore).some((a) => a.status === 200)) recoveredMs = Date.now() - back;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await load;
    const unavailable = answers.filter((a) => a.status === 503).length;
    console.log(`pg_ctl restart: ${answers.length} requests, ${unavailable} answered 503; back → first 200: ${recoveredMs} ms`);

    expect(recoveredMs).not.toBeNull();
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set(answers.some((a) => a.status === 503) ? [200, 503] : [200]));
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(10_000);
    for (const answer of answers.filter((a) => a.status === 503)) expect(answer.body?.message).toMatch(/database is unavailable/);
    await addPoints(sql, { address: ADDRESS, points: 2, description: "after the restart", actor: { kind: "cli" } });
    const [balance] = await sql<{ units: number }[]>`select units from wallet_balances where address = ${ADDRESS}`;
    expect(balance.units / 2400).toBe(7); // nothing lost or doubled: 5 before, 2 after
  });
});
