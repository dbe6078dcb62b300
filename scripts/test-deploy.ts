/**
 * `npm run test:deploy`: the production stack proven in containers (slow; CI runs it last, .ci/deploy). Builds the
 * image, brings docker-compose.yml up as a project of its own (PostgreSQL, two web replicas behind Caddy with
 * TLS, the indexer and the simulated ord server), drives Chromium through https:// (the admin signs in and
 * creates a giveaway with an upload; a holder stakes and enters; both replicas serve), proves that two clients
 * behind Caddy have a rate limit each, then, under steady traffic: stops one web container, restarts PostgreSQL,
 * takes the stack down and up again, and upgrades to a new image that carries a new (test-only) migration.
 * Prints each timing; exits 1 at the first thing that does not hold.
 *
 * Needs a Docker engine (DOCKER_HOST), compose, and Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium-headless-shell). Image names default to the public ones: NODE_IMAGE (build argument),
 * POSTGRES_IMAGE, CADDY_IMAGE. DOCKER and COMPOSE name the commands (scripts/deploy/docker.ts);
 * DEPLOY_BUILD_NETWORK the build's network (default host); DEPLOY_IMAGE tests that image instead of building one;
 * DEPLOY_KEEP=1 leaves the stack up at the end.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { addressOfPrivateKey } from "../app/domain/signature.ts";
import { demoCatalogue } from "../db/demo-catalogue.ts";
import { CHROMIUM_ARGS, CHROMIUM_EXECUTABLE } from "../tests/e2e/support/browser.ts";
import { freePort } from "../tests/support/net.ts";
import { chromium } from "playwright-core";
import { adminCreatesGiveaway, holderStakesAndEnters, type Wallet } from "./deploy/browser-flow.ts";
import { networksOf, startClient } from "./deploy/clients.ts";
import {
  composeProject,
  docker,
  DOCKER,
  healthOf,
  imageOf,
  imageSize,
  passesHealthCheckNow,
  visible,
  type Compose,
} from "./deploy/docker.ts";
import { get, startTraffic, type Endpoint, type Traffic } from "./deploy/traffic.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const PROJECT = "spooks-deploy-test";
/** DEPLOY_IMAGE: test an image already built (or pulled) instead of building one. */
const IMAGE = process.env.DEPLOY_IMAGE ?? "spooks:deploy-test";
const NEXT_IMAGE = "spooks:deploy-test-next";
const SITE = "spooks.localhost";
const GIVEAWAY = "Deploy Test Prize";
/** The test-only migration the upgrade carries (never in db/migrations). */
const TEST_MIGRATION = "9999_deploy_test";
/**
 * The sign-in limit (RATE_LIMIT_SIGNIN_PER_MIN) the 429 proof spends: one client's budget, small so that client
 * reaches it in a moment. The browser phase signs in from another address (the host's), well below it.
 */
const SIGN_IN_LIMIT = 20;
/**
 * The read limit (RATE_LIMIT_READS_PER_MIN): on, and counted in PostgreSQL as in production (so the database
 * restart runs through it), but above what the steady traffic can send: that traffic is one client (the host)
 * whose 4 loops pause 25 ms between requests, at most 9,600 a minute.
 */
const READ_LIMIT = 60_000;
/**
 * What must survive every phase unchanged, row for row: a count and a hash of each table's rows. The ledger
 * leaves out hourly accruals (the indexer may credit an hour meanwhile); sessions are counted only.
 */
const KEPT = {
  items: "select * from items",
  stakes: "select * from stakes",
  giveaways: "select * from giveaways",
  giveaway_entries: "select * from giveaway_entries",
  used_signatures: "select * from used_signatures",
  points_ledger: "select * from points_ledger where kind <> 'accrual'",
  sessions: "select count(*) from sessions",
};

const figures: [string, string][] = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function say(text: string) {
  console.log(`test:deploy: ${text}`);
}

function figure(name: string, value: string) {
  figures.push([name, value]);
  say(`${name}: ${value}`);
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function wallet(label: string): Wallet {
  const key = sha256(new TextEncoder().encode(`spooks-e2e:${label}`));
  return { privateKeyHex: bytesToHex(key), address: addressOfPrivateKey(key) };
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${what}: not within ${seconds(timeoutMs)}${last ? ` (${(last as Error).message})` : ""}`);
}

async function buildImage(): Promise<void> {
  const started = Date.now();
  const args = ["build", "--network", process.env.DEPLOY_BUILD_NETWORK ?? "host", "-t", IMAGE];
  if (process.env.NODE_IMAGE) args.push("--build-arg", `NODE_IMAGE=${process.env.NODE_IMAGE}`);
  await visible(DOCKER, [...args, ROOT], { ...process.env, DOCKER_BUILDKIT: process.env.DOCKER_BUILDKIT ?? "1" });
  figure("image build", seconds(Date.now() - started));
  figure("image size", `${((await imageSize(IMAGE)) / 1e6).toFixed(1)} MB`);
}

/** The next release: this image plus the test-only migration, built from a context of its own. */
async function buildNextImage(): Promise<void> {
  const context = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-next-"));
  fs.writeFileSync(
    path.join(context, `${TEST_MIGRATION}.sql`),
    fs.readFileSync(path.join(ROOT, "scripts/deploy", `${TEST_MIGRATION}.sql`)),
  );
  fs.writeFileSync(
    path.join(context, "Dockerfile"),
    `FROM ${IMAGE}\nCOPY ${TEST_MIGRATION}.sql /app/db/migrations/\nLABEL spooks.deploy-test=next\n`,
  );
  await visible(DOCKER, ["build", "-q", "-t", NEXT_IMAGE, context]);
  fs.rmSync(context, { recursive: true, force: true });
}

type Project = { compose: Compose; dir: string; env: Record<string, string>; ports: { http: number; https: number } };
type Stack = Project & { endpoint: Endpoint; url: string };

function writeProject(holder: Wallet, admin: Wallet, ports: { http: number; https: number }): { dir: string; env: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-deploy-"));
  for (const file of ["docker-compose.yml", "Caddyfile"]) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  const env: Record<string, string> = {
    POSTGRES_PASSWORD: randomBytes(16).toString("hex"),
    APP_DATABASE_PASSWORD: randomBytes(16).toString("hex"),
    PUBLIC_URL: `https://${SITE}`,
    ADMIN_ADDRESS: admin.address,
    ORD_URL: "http://ord-simulated:8080",
    SIMULATED_HOLDER_ADDRESS: holder.address,
    COMPOSE_PROFILES: "simulated",
    SPOOKS_IMAGE: IMAGE,
    HTTP_PORT: `127.0.0.1:${ports.http}`,
    HTTPS_PORT: `127.0.0.1:${ports.https}`,
    // Ownership every 10 s instead of every minute, so the holder's Spooks show soon after the catalogue.
    INDEXER_SYNC_CRON: "*/10 * * * * *",
    RATE_LIMIT_SIGNIN_PER_MIN: String(SIGN_IN_LIMIT),
    RATE_LIMIT_READS_PER_MIN: String(READ_LIMIT),
  };
  if (process.env.POSTGRES_IMAGE) env.POSTGRES_IMAGE = process.env.POSTGRES_IMAGE;
  if (process.env.CADDY_IMAGE) env.CADDY_IMAGE = process.env.CADDY_IMAGE;
  fs.writeFileSync(
    path.join(dir, ".env"),
    Object.entries(env)
      .map(([key, value]) => `${key}=${value}\n`)
      .join(""),
  );
  return { dir, env };
}

/**
 * Every container of the stack healthy and the site answering 200 through the proxy. A container docker has not
 * probed yet ("starting") counts once its own health check passes when run now: docker would say "healthy" at
 * its next probe, up to an interval later (the indexer's is 60 s), and nothing in the stack waits for that.
 */
async function waitHealthy(stack: Stack, webReplicas: number): Promise<void> {
  const healthy = async (container: string) => {
    const health = await healthOf(container);
    return health === "healthy" || (health === "starting" && (await passesHealthCheckNow(container)));
  };
  await until("every service healthy", 240_000, async () => {
    for (const service of ["postgres", "web", "indexer", "caddy", "ord-simulated"]) {
      const containers = await stack.compose.containers(service);
      if (service === "web" && containers.length !== webReplicas) return false;
      if (containers.length === 0) return false;
      for (const container of containers) if (!(await healthy(container))) return false;
    }
    return true;
  });
  await until("https answers", 60_000, async () => (await get(stack.endpoint, "/api/ready")).status === 200);
}

async function caddyRootCertificate(compose: Compose): Promise<string> {
  const [caddy] = await compose.containers("caddy");
  return until("Caddy's local certificate authority", 240_000, () =>
    docker(["exec", caddy, "cat", "/data/caddy/pki/authorities/local/root.crt"]).then((pem) => pem.includes("BEGIN CERTIFICATE") && pem),
  );
}

/** The compose project in a folder of its own, without what an earlier run left. */
async function createProject(holder: Wallet, admin: Wallet): Promise<Project> {
  const ports = { http: await freePort(), https: await freePort() };
  const { dir, env } = writeProject(holder, admin, ports);
  const compose = await composeProject(dir, PROJECT);
  // A run killed midway (or kept with DEPLOY_KEEP=1) leaves containers that restart by themselves and volumes
  // that hold its records: `up` would take them over.
  await compose.visible(["down", "-v", "--remove-orphans"]);
  return { compose, dir, env, ports };
}

async function startStack(project: Project): Promise<Stack> {
  const started = Date.now();
  await project.compose.visible(["up", "-d", "--no-build", "--scale", "web=2"]);
  const ca = await caddyRootCertificate(project.compose);
  const stack: Stack = {
    ...project,
    url: `https://${SITE}`,
    endpoint: { host: "127.0.0.1", port: project.ports.https, servername: SITE, ca },
  };
  await until("https answers", 240_000, async () => (await get(stack.endpoint, "/api/ready")).status === 200);
  figure("up -d → first https 200", seconds(Date.now() - started));
  await waitHealthy(stack, 2);
  figure("stack up (up -d → every service healthy)", seconds(Date.now() - started));
  return stack;
}

async function snapshot(stack: Stack): Promise<Record<string, string>> {
  const [postgres] = await stack.compose.containers("postgres");
  // Rows as JSON without the column the upgrade's migration adds, so the same rows hash the same after it.
  const row = `(to_jsonb(r) - 'deploy_test_note')::text`;
  const digest = (query: string) =>
    `(select count(*) || ' ' || coalesce(md5(string_agg(${row}, '|' order by ${row})), '') from (${query}) r)`;
  const columns = Object.values(KEPT).map(digest).join(" || ',' || ");
  const out = await docker(["exec", postgres, "psql", "-U", "spooks", "-d", "spooks", "-Atc", `select ${columns}`]);
  const values = out.split(",");
  return Object.fromEntries(Object.keys(KEPT).map((name, i) => [name, values[i]]));
}

function sameRecords(before: Record<string, string>, after: Record<string, string>, phase: string): void {
  check(
    JSON.stringify(before) === JSON.stringify(after),
    `${phase}: records changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`,
  );
}

async function cli(stack: Stack, args: string[]): Promise<string> {
  const [web] = await stack.compose.containers("web");
  return docker(["exec", web, "spooks-admin", ...args]);
}

async function seed(stack: Stack, holder: Wallet): Promise<void> {
  const [web] = await stack.compose.containers("web");
  await docker(["exec", "-i", web, "sh", "-c", "cat > /data/deploy-test-catalogue.json"], { input: JSON.stringify(demoCatalogue()) });
  say(await cli(stack, ["catalogue", "import", "/data/deploy-test-catalogue.json"]));
  await docker(["exec", web, "rm", "/data/deploy-test-catalogue.json"]);
  await cli(stack, ["points", "add", holder.address, "500", "--description", "test:deploy"]);
  await until("the indexer sees the holder's Spooks", 120_000, async () => {
    const { status, body } = await get(stack.endpoint, `/api/wallet-doginals/${holder.address}`);
    return status === 200 && body.toString().includes("Spooks #1");
  });
}

/** Requests each web replica has answered (its /metrics on the private port, read inside the container). */
async function requestsServed(container: string): Promise<number> {
  const text = await docker([
    "exec",
    container,
    "node",
    "-e",
    "fetch('http://127.0.0.1:9464/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))",
  ]);
  return text
    .split("\n")
    .filter((line) => line.startsWith("spooks_http_requests_total{"))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

/** The browser part; answers the uploaded picture's address. */
async function browserPhase(stack: Stack, browser: Browser, holder: Wallet, admin: Wallet): Promise<string> {
  const started = Date.now();
  const imageUrl = await adminCreatesGiveaway(browser, stack.url, admin, GIVEAWAY);
  await holderStakesAndEnters(browser, stack.url, holder, "Spooks #1", GIVEAWAY);
  figure("browser: admin signs in and creates a giveaway with an upload; holder stakes and enters", seconds(Date.now() - started));
  await uploadServed(stack, imageUrl);
  const served = await Promise.all((await stack.compose.containers("web")).map(requestsServed));
  check(served.length === 2 && served.every((count) => count > 0), `not every replica served: ${served.join(", ")}`);
  figure("requests served per web replica", served.join(", "));
  const records = await snapshot(stack);
  for (const table of ["stakes", "giveaways", "giveaway_entries"] as const) {
    check(records[table].startsWith("1 "), `${table} should hold the browser's one row: ${records[table]}`);
  }
  return imageUrl;
}

/**
 * Behind Caddy (TRUST_PROXY=1), each client is limited by its own address, not the proxy's: client A spends its
 * sign-in budget (every request answered 200), then gets 429, also when it forges X-Forwarded-For; client B, at
 * another address but through the same Caddy, gets 200 right after. Were the limit keyed on Caddy's address, A
 * would share it with the browser's sign-ins (refused at its 19th request) and B would get 429.
 */
async function limitedPerClient(stack: Stack, admin: Wallet): Promise<void> {
  const started = Date.now();
  const [caddy] = await stack.compose.containers("caddy");
  const [network] = await networksOf(caddy);
  const proxy = { network, host: "caddy", servername: SITE, ca: stack.endpoint.ca };
  const challenge = { path: `/api/auth/challenge?address=${admin.address}` };
  const forged = { ...challenge, headers: { "X-Forwarded-For": "203.0.113.7" } };
  const [a, b] = await Promise.all([startClient(IMAGE, proxy), startClient(IMAGE, proxy)]);
  try {
    check(a.address !== b.address, `the two clients share an address: ${a.address}`);
    const statusesA = await a.send([...Array<typeof challenge>(SIGN_IN_LIMIT + 1).fill(challenge), forged]);
    const [statusB] = await b.send([challenge]);
    const all = statusesA.join(" ");
    check(
      statusesA.slice(0, SIGN_IN_LIMIT).every((status) => status === 200),
      `client ${a.address} was refused within its budget: ${all}`,
    );
    check(statusesA[SIGN_IN_LIMIT] === 429, `client ${a.address} was not limited beyond its budget: ${all}`);
    check(statusesA[SIGN_IN_LIMIT + 1] === 429, `a forged X-Forwarded-For gave client ${a.address} a new budget: ${all}`);
    check(statusB === 200, `client ${b.address} was limited by client ${a.address}'s requests: ${statusB}`);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  figure(
    "429 proof: two clients behind Caddy, one sign-in budget each",
    `${a.address}: ${SIGN_IN_LIMIT} × 200, then 429 (also with a forged X-Forwarded-For); ${b.address}: 200; ${seconds(Date.now() - started)}`,
  );
}

async function replicaStop(stack: Stack, traffic: Traffic): Promise<void> {
  const [victim] = await stack.compose.containers("web");
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const stoppedAt = Date.now();
  await docker(["stop", victim]);
  // Caddy looks the replicas up again every 5 s and skips a refusing one for 30 s: 15 s covers both.
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  const failed = traffic.failures(stoppedAt);
  const last = failed.at(-1);
  figure(
    "replica stop → last failed request",
    last
      ? `${seconds(last.endedAt - stoppedAt)} (${failed.length} failed: ${last.status ?? last.error})`
      : `none failed (of ${traffic.outcomes.filter((o) => o.startedAt >= stoppedAt).length})`,
  );
  const late = traffic.failures(stoppedAt + 10_000);
  check(late.length === 0, `requests still failing 10 s after a replica stopped: ${late.length}`);
  await docker(["start", victim]);
  await waitHealthy(stack, 2);
}

async function databaseRestart(stack: Stack, traffic: Traffic): Promise<void> {
  const before = await snapshot(stack);
  const [postgres] = await stack.compose.containers("postgres");
  const restartedAt = Date.now();
  await docker(["restart", postgres]);
  await until("PostgreSQL healthy again", 120_000, async () => (await healthOf(postgres)) === "healthy");
  // The outage ends with the last failed request; the first 200 is the first success after it.
  const up = await until("a 200 after the database restart", 60_000, async () => {
    const lastFailure = traffic.failures(restartedAt).at(-1);
    const first = traffic.firstSuccess(lastFailure?.startedAt ?? restartedAt);
    return first && Date.now() - first.endedAt > 3000 && first;
  });
  const during = traffic.failures(restartedAt, up.startedAt);
  const not503 = during.filter((o) => o.status !== 503);
  check(not503.length === 0, `during the database restart some answers were not 503: ${JSON.stringify(not503.slice(0, 3))}`);
  figure("database restart → first 200", `${seconds(up.endedAt - restartedAt)} (${during.length} answers 503 meanwhile)`);
  await waitHealthy(stack, 2);
  sameRecords(before, await snapshot(stack), "database restart");
}

/** An uploaded picture is still served, as the PNG it was. */
async function uploadServed(stack: Stack, imageUrl: string): Promise<void> {
  const image = await get(stack.endpoint, imageUrl);
  check(image.status === 200 && image.headers["content-type"] === "image/png", `the upload ${imageUrl} is not served: ${image.status}`);
}

async function downAndUp(stack: Stack, imageUrl: string): Promise<void> {
  const before = await snapshot(stack);
  const started = Date.now();
  await stack.compose.visible(["down"]);
  await stack.compose.visible(["up", "-d", "--no-build", "--scale", "web=2"]);
  await waitHealthy(stack, 2);
  figure("down + up → every service healthy", seconds(Date.now() - started));
  await uploadServed(stack, imageUrl);
  sameRecords(before, await snapshot(stack), "down + up");
}

/** New replicas on the next image beside the old ones, then the old ones stopped, then the indexer. */
async function upgrade(stack: Stack, traffic: Traffic, imageUrl: string): Promise<void> {
  await buildNextImage();
  const before = await snapshot(stack);
  const old = await stack.compose.containers("web");
  const started = Date.now();
  const next = { SPOOKS_IMAGE: NEXT_IMAGE };
  await stack.compose.visible(["up", "-d", "--no-build", "--no-deps", "--no-recreate", "--scale", "web=4", "web"], next);
  await until("the new replicas healthy", 240_000, async () => {
    const fresh = (await stack.compose.containers("web")).filter((c) => !old.includes(c));
    return fresh.length === 2 && (await Promise.all(fresh.map(healthOf))).every((h) => h === "healthy");
  });
  for (const container of old) await docker(["stop", container]);
  await docker(["rm", ...old]);
  await stack.compose.visible(["up", "-d", "--no-build", "--no-deps", "indexer"], next);
  const envFile = path.join(stack.dir, ".env");
  fs.writeFileSync(envFile, fs.readFileSync(envFile, "utf8").replace(`SPOOKS_IMAGE=${IMAGE}`, `SPOOKS_IMAGE=${NEXT_IMAGE}`));
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  await waitHealthy(stack, 2);
  const failed = traffic.failures(started);
  figure(
    "upgrade to a new image with a migration (rolling) → failed requests",
    `${failed.length} of ${traffic.outcomes.filter((o) => o.startedAt >= started).length} in ${seconds(Date.now() - started)}`,
  );
  check(failed.length === 0, `requests failed during the upgrade: ${JSON.stringify(failed.slice(0, 3))}`);
  const nextId = await docker(["image", "inspect", "--format", "{{.Id}}", NEXT_IMAGE]);
  for (const service of ["web", "indexer"]) {
    for (const container of await stack.compose.containers(service))
      check((await imageOf(container)) === nextId, `${service} is not on the new image`);
  }
  const [postgres] = await stack.compose.containers("postgres");
  const applied = await docker([
    "exec",
    postgres,
    "psql",
    "-U",
    "spooks",
    "-d",
    "spooks",
    "-Atc",
    `select count(*) from schema_migrations where version = '${TEST_MIGRATION}'`,
  ]);
  check(applied === "1", "the new migration was not applied");
  await uploadServed(stack, imageUrl);
  sameRecords(before, await snapshot(stack), "upgrade");
}

async function main(): Promise<void> {
  const holder = wallet("holder");
  const admin = wallet("admin");
  if (process.env.DEPLOY_IMAGE) say(`testing ${IMAGE} (not building)`);
  else await buildImage();
  const project = await createProject(holder, admin);
  let browser: Browser | undefined;
  let traffic: Traffic | undefined;
  try {
    const stack = await startStack(project);
    await seed(stack, holder);
    browser = await chromium.launch({
      executablePath: CHROMIUM_EXECUTABLE,
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${SITE} 127.0.0.1:${stack.endpoint.port}`],
    });
    const imageUrl = await browserPhase(stack, browser, holder, admin);
    await limitedPerClient(stack, admin);
    traffic = startTraffic(stack.endpoint, ["/api/ready", `/api/rewards/${holder.address}`, "/"]);
    await replicaStop(stack, traffic);
    await databaseRestart(stack, traffic);
    await traffic.stop();
    await downAndUp(stack, imageUrl);
    traffic = startTraffic(stack.endpoint, ["/api/ready", `/api/rewards/${holder.address}`, "/"]);
    await upgrade(stack, traffic, imageUrl);
    await traffic.stop();
    say("every phase held");
    console.table(Object.fromEntries(figures));
  } finally {
    await traffic?.stop();
    await browser?.close();
    if (process.env.DEPLOY_KEEP === "1") say(`stack left up: ${project.dir}`);
    else {
      await project.compose.visible(["down", "-v"]).catch((error: Error) => say(`down -v failed: ${error.message}`));
      fs.rmSync(project.dir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  console.error(`test:deploy: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
