/**
 * The compiled programs production runs (server/build.ts → build/node/), started with plain node as the image
 * starts them, with no TypeScript tooling loaded: the web server answers /api/live, /api/ready and serves
 * /metrics on its operations port only; the indexer's /health says why it is unhealthy (the ord server is
 * down) and the compiled health check reads it; the CLI prints its help and works on the database; the
 * simulated ord server of the compose profile "simulated" serves the demo catalogue with the holder it is given.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { ensureAppBuild, ensureCompiledPrograms } from "../tests/support/app-server.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { freePort } from "../tests/support/net.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const ADMIN = "DCH3XaN5CcskGZuDqS14Sr6mnPQEPmvWh7";
/**
 * Preloaded scripts, as files (a data: URL would itself load Node's fetch, which one test looks for): RECORD_LOADS
 * records every module node loads (ESM and CommonJS) into LOADED_LOG; RECORD_BUILTINS writes the names of the Node
 * modules the process loaded (process.moduleLoadList) to BUILTINS_LOG as it exits.
 */
const PROBES = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-compiled-probes-"));
const RECORD_LOADS = path.join(PROBES, "record-loads.mjs");
const RECORD_BUILTINS = path.join(PROBES, "record-builtins.mjs");
fs.writeFileSync(
  RECORD_LOADS,
  "import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs';\n" +
    "registerHooks({ load(url, context, next) { appendFileSync(process.env.LOADED_LOG, url + '\\n'); return next(url, context); } });\n",
);
fs.writeFileSync(
  RECORD_BUILTINS,
  "import { writeFileSync } from 'node:fs';\n" +
    "process.on('exit', () => writeFileSync(process.env.BUILTINS_LOG, JSON.stringify(process.moduleLoadList)));\n",
);
afterAll(() => fs.rmSync(PROBES, { recursive: true, force: true }));

type Run = { code: number | null; stdout: string; stderr: string };

function run(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<Run> } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { child, output: () => stdout + stderr, exited };
}

async function waitFor(url: string, status: number, child: ChildProcess, output: () => string): Promise<Response> {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    const answer = await fetch(url).catch(() => null);
    if (answer?.status === status) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never answered ${status}:\n${output()}`);
}

describe("the compiled programs", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let outDir: string;
  let buildDir: string;
  let dataDir: string;
  let loadedLog: string;
  let builtinsLog: string;
  const children: ChildProcess[] = [];
  const program = (name: string) => path.join(outDir, name);
  const loaded = () => fs.readFileSync(loadedLog, "utf8");

  beforeAll(async () => {
    // Inside the project (node_modules and package.json are found from there), apart from any real build.
    [db, buildDir, outDir] = await Promise.all([createTestDatabase(), ensureAppBuild(), ensureCompiledPrograms()]);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-compiled-"));
    loadedLog = path.join(dataDir, "loaded.log");
    builtinsLog = path.join(dataDir, "builtins.json");
  }, 180_000);
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await db?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const production = () => ({
    NODE_ENV: "production",
    DATABASE_URL: db.url,
    ORD_URL: "http://127.0.0.1:9",
    ADMIN_ADDRESS: ADMIN,
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    LOADED_LOG: loadedLog,
  });

  it("web: serves /api/live and /api/ready, /metrics only on the operations port, with no TypeScript tooling", async () => {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    const base = `http://127.0.0.1:${port}`;
    const env = { ...production(), PUBLIC_URL: base, PORT: String(port), METRICS_PORT: String(metricsPort), SPOOKS_BUILD_DIR: buildDir };
    const web = run(["--import", RECORD_LOADS, program("start.js"), "--no-indexer"], env);
    children.push(web.child);
    expect(await (await waitFor(`${base}/api/live`, 200, web.child, web.output)).json()).toEqual({ ok: true });
    expect(await (await waitFor(`${base}/api/ready`, 200, web.child, web.output)).json()).toEqual({ ok: true });
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^spooks_info\{role="web",version="\d+\.\d+\.\d+"\} 1$/m);
    expect(metrics).toMatch(/^spooks_http_requests_total\{method="GET",route="\/api\/live",status="200"\} [1-9]/m);

    const check = await run([program("healthcheck.cjs")], { PORT: String(port) }).exited;
    expect(check).toMatchObject({ code: 0, stderr: "" });

    web.child.kill("SIGTERM");
    expect((await web.exited).code).toBe(0);
    expect(loaded()).toContain(`${outDir}/start.js`);
    expect(loaded()).not.toMatch(/node_modules\/(tsx|esbuild|typescript|@esbuild|vite)\//);
  });

  it("indexer: its /health says the ord server is down, and the compiled health check reads it", async () => {
    const metricsPort = await freePort();
    const indexer = run([program("indexer.js")], { ...production(), METRICS_PORT: String(metricsPort), INDEXER_STALE_AFTER_S: "60" });
    children.push(indexer.child);
    await waitFor(`http://127.0.0.1:${metricsPort}/health`, 503, indexer.child, indexer.output);
    let health: unknown;
    // The operations port answers from the start; the first pass (held back: nothing answers at ORD_URL) follows.
    for (let i = 0; i < 100 && (health as { syncState?: string } | undefined)?.syncState !== "unavailable"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      health = await (await fetch(`http://127.0.0.1:${metricsPort}/health`)).json();
    }
    expect(health).toMatchObject({ ok: false, syncState: "unavailable", lastAppliedSyncAt: null });

    const check = await run([program("healthcheck.cjs"), "indexer"], { METRICS_PORT: String(metricsPort) }).exited;
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(
      /^unhealthy \(indexer\): the indexer's \/health answered 503: no ownership pass has been applied yet \(limit 60 s\); \d+ held back in a row, the last unavailable: ord server unavailable/,
    );
    indexer.child.kill("SIGTERM");
    expect((await indexer.exited).code).toBe(0);
  });

  it("CLI: --help, and a command on the database, from the bundle alone", async () => {
    fs.writeFileSync(loadedLog, "");
    const help = await run(["--import", RECORD_LOADS, program("spooks-admin.js"), "--help"], { LOADED_LOG: loadedLog }).exited;
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: spooks-admin \[options\] \[command\]/);
    expect(help.stdout).toContain("spooks-admin indexer sync");
    const packagesLoaded = new Set([...loaded().matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((match) => match[1]));
    expect([...packagesLoaded].filter((name) => /^(tsx|esbuild|typescript|@esbuild|vite|zod|postgres|commander)$/.test(name))).toEqual([]);

    const env = { DATABASE_URL: db.url, LOG_LEVEL: "silent", CI: "1", NO_COLOR: "1" };
    const stats = await run([program("spooks-admin.js"), "catalogue", "stats", "--json"], env).exited;
    expect(stats).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(stats.stdout)).toEqual({ collections: [] });
    // Without --json the answer is drawn by Ink (React), bundled in with React's production build.
    fs.writeFileSync(loadedLog, "");
    // Started with the flag the installed command gives node, so the command runs in this process, not in a second Node.
    const drawn = await run(
      ["--liftoff-only", "--import", RECORD_LOADS, "--import", RECORD_BUILTINS, program("spooks-admin.js"), "users"],
      {
        ...env,
        LOADED_LOG: loadedLog,
        BUILTINS_LOG: builtinsLog,
      },
    ).exited;
    expect(drawn.code).toBe(0);
    expect(drawn.stdout).toBe("No users with points found\n");
    expect(loaded()).not.toMatch(/node_modules\/(ink|react|react-reconciler|scheduler|yoga-layout)\//);
    // Node loads its fetch (undici, with http2 and zlib) when anything asks for `fetch`; Ink's layout engine asked.
    const builtins = JSON.parse(fs.readFileSync(builtinsLog, "utf8")) as string[];
    expect(builtins).toContain("NativeModule net"); // what the command loaded, to its end
    expect(builtins.filter((name) => /undici/.test(name))).toEqual([]);
    const bundled = fs
      .readdirSync(outDir)
      .filter((name) => name.startsWith("cli-"))
      .map((name) => fs.readFileSync(path.join(outDir, name), "utf8"))
      .join("\n");
    expect(bundled).toContain("react-reconciler/cjs/react-reconciler.production.js");
    expect(bundled).not.toContain("react-reconciler.development");
    // zod's English only, of its sixty-odd translations.
    expect(bundled).toContain("node_modules/zod/v4/locales/en.js");
    expect(bundled).not.toContain("node_modules/zod/v4/locales/de.js");
  });

  it("simulated ord server (compose profile 'simulated'): the holder's items from the demo catalogue; a bad holder refused", async () => {
    const port = await freePort();
    const ord = run([program("simulated-ord.js")], {
      PORT: String(port),
      HOST: "127.0.0.1",
      SIMULATED_HOLDER_ADDRESS: ADMIN,
      SIMULATED_HOLDER_ITEMS: "2",
    });
    children.push(ord.child);
    expect(await (await waitFor(`http://127.0.0.1:${port}/block-count`, 200, ord.child, ord.output)).text()).toMatch(/^\d+$/);
    const [first] = demoCatalogue();
    const inscription = (await (await fetch(`http://127.0.0.1:${port}/inscription/${first.inscriptionId}?json=true`)).json()) as {
      address: string;
    };
    expect(inscription.address).toBe(ADMIN);
    ord.child.kill("SIGTERM");
    expect((await ord.exited).code).toBe(0);

    const refused = await run([program("simulated-ord.js")], { PORT: String(port), SIMULATED_HOLDER_ADDRESS: "not-an-address" }).exited;
    expect(refused).toMatchObject({ code: 1, stderr: "SIMULATED_HOLDER_ADDRESS must be a P2PKH or P2SH address of mainnet\n" });
  });
});
