/**
 * No secret in the audit trail or on screen (issue 23, item 5): ORD_URL and DATABASE_URL carry a distinctive
 * password, then the CLI (`indexer sync`, `indexer status`, a sync against an ord server that does not
 * answer, `audit`) and `npm start`'s process (web and indexer, with its logs at debug, /api/health and
 * /metrics) run for real; the password must appear in none of what they printed, answered or wrote
 * (audit_log and sync_runs, read with SQL).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomAddress, stakeDemoItems } from "../cli/testing/fixtures.ts";
import { cliEnv, runCli, type CliEnv } from "../cli/testing/run-cli.ts";
import { startSimulatedChain, type SimulatedChain } from "../indexer/simulated-chain.server.ts";
import { ensureAppBuild } from "./support/app-server.ts";
import { freePort, sleep } from "./support/net.ts";
import { createTestDatabase } from "./support/test-database.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const ORD_PASSWORD = `S3cretOrdPW${randomBytes(6).toString("hex")}`;
const ADMIN = randomAddress();

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let chain: SimulatedChain;
/** DATABASE_URL with a password: the embedded test server's own (random), or one PostgreSQL's trust auth ignores. */
let databaseUrl: string;
let dbPassword: string;
let ordUrl: string;
let env: CliEnv;

/** The password as it may be written: as given, and percent-encoded. */
const spellings = () => [ORD_PASSWORD, dbPassword, encodeURIComponent(dbPassword)];

function expectNoSecret(what: string, text: string): void {
  for (const secret of spellings()) expect(text.includes(secret), `${what} holds a password:\n${text.slice(0, 2000)}`).toBe(false);
}

beforeAll(async () => {
  db = await createTestDatabase();
  const items = await stakeDemoItems(db.sql, ADMIN, 3, new Date(Date.now() - 3 * 3_600_000));
  chain = await startSimulatedChain({ owners: new Map(items.map((item) => [item.inscriptionId, ADMIN])) });
  const url = new URL(db.url);
  if (!url.password) url.password = `S3cretDbPW${randomBytes(6).toString("hex")}`;
  databaseUrl = url.href;
  dbPassword = decodeURIComponent(url.password);
  const ord = new URL(chain.url);
  ord.username = "spooks";
  ord.password = ORD_PASSWORD;
  ordUrl = ord.href.replace(/\/$/, "");
  env = cliEnv(databaseUrl, { ORD_URL: ordUrl, INDEXER_RETRIES: "0", INDEXER_TIMEOUT_MS: "2000", LOG_LEVEL: "debug" });
});
afterAll(async () => {
  await chain?.close();
  await db?.close();
});

/** Everything the database holds that a person reads: the audit trail and the recorded passes. */
async function storedText(): Promise<string> {
  const audit = await db.sql<{ row: string }[]>`select audit_log::text as row from audit_log`;
  const runs = await db.sql<{ row: string }[]>`select sync_runs::text as row from sync_runs`;
  return [...audit, ...runs].map((entry) => entry.row).join("\n");
}

describe("spooks-admin with a password in ORD_URL and DATABASE_URL", () => {
  it("indexer sync, indexer status, a failing sync and audit print and write no password", async () => {
    const outputs: [string, string][] = [];
    const run = async (args: string[], extra: CliEnv = {}) => {
      const result = await runCli(args, { ...env, ...extra });
      outputs.push([`spooks-admin ${args.join(" ")}`, `${result.stdout}\n${result.stderr}`]);
      return result;
    };

    expect((await run(["indexer", "sync"])).code).toBe(0);
    expect((await run(["indexer", "sync", "--json"])).code).toBe(0);
    const status = await run(["indexer", "status", "--json"]);
    expect(status.code).toBe(0);
    // The operator still sees which server, and that it has credentials.
    expect(JSON.parse(status.stdout).ordUrl).toBe(`http://[redacted]@${new URL(chain.url).host}/`);
    expect((await run(["indexer", "status"])).stdout).toContain(`http://[redacted]@${new URL(chain.url).host}/`);

    const silent = `http://spooks:${ORD_PASSWORD}@127.0.0.1:${await freePort()}`;
    const failed = await run(["indexer", "sync"], { ORD_URL: silent, SPOOKS_DEBUG: "1" });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/the ord server at http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/ did not answer/);
    expect((await run(["indexer", "status"], { ORD_URL: silent })).code).toBe(0);

    const audit = await run(["audit", "--json"]);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout).entries.filter((entry: { action: string }) => entry.action === "indexer.sync")).toHaveLength(3);
    await run(["audit"]);

    for (const [what, text] of outputs) expectNoSecret(what, text);
    const stored = await storedText();
    expect(stored).toContain("indexer.sync");
    expectNoSecret("audit_log and sync_runs", stored);
  }, 120_000);
});

describe("npm start (web and indexer) with a password in ORD_URL and DATABASE_URL", () => {
  it("logs, /api/health, /metrics and what it writes hold no password", async () => {
    const [buildDir, metricsPort] = await Promise.all([ensureAppBuild(), freePort()]);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-secrets-"));
    const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: databaseUrl,
        ORD_URL: ordUrl,
        ADMIN_ADDRESS: ADMIN,
        DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "debug",
        LOG_FORMAT: "json",
        SPOOKS_BUILD_DIR: buildDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let logs = "";
    child.stdout.on("data", (chunk) => (logs += chunk));
    child.stderr.on("data", (chunk) => (logs += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      let site: string | undefined;
      for (let i = 0; i < 600 && !site && child.exitCode === null; i++) {
        site = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(logs)?.[1];
        if (!site) await sleep(100);
      }
      expect(site, logs).toBeDefined();
      for (let i = 0; i < 100; i++) {
        const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from sync_runs where source <> 'cli'`;
        if (row.n > 0) break;
        await sleep(100);
      }
      const health = await (await fetch(`${site}/api/health`)).text();
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(JSON.parse(health).indexer.syncState).toBe("ok");
      expectNoSecret("/api/health", health);
      expectNoSecret("/metrics", metrics);
    } finally {
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect(logs).toContain('"msg":"listening"');
    expectNoSecret("the web and indexer logs", logs);
    expectNoSecret("audit_log and sync_runs", await storedText());
  }, 120_000);
});
