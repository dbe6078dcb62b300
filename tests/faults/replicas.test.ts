/**
 * The production topology without containers (issue 11, item 5): two web replicas and one indexer, the
 * compiled programs `npm run start:web` and `start:indexer` run (separate processes, NODE_ENV=production) on one PostgreSQL (a throwaway cluster
 * made with Debian's binaries, whatever engine the rest of the suite uses), the indexer reading a simulated
 * wonky-ord server, behind a real nginx terminating TLS (a certificate made here) that balances over both
 * replicas, with PUBLIC_URL https://… and a shared UPLOAD_DIR. Driven over https with the proxy's
 * certificate trusted:
 * - requests alternate between the replicas (nginx names the one that answered in a test-only header and
 *   in its access log), and each serves some;
 * - a sign-in challenge issued by one replica is redeemed on the other, and the session cookie minted there
 *   is accepted by the first; the admin uploads an image (readable through the proxy from either replica),
 *   creates a giveaway with it and gives a holder points; the holder stakes;
 * - the replica that minted the session is SIGKILLed while reads stream through the proxy: no read fails,
 *   and the flow goes on through the survivor (the holder stakes again and enters the giveaway; the
 *   admin's session, the image and the giveaway are all still there);
 * - in the database every effect is present exactly once.
 * Skipped when PostgreSQL's binaries or nginx are missing (.ci/run installs both).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type { IncomingHttpHeaders } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogueItem } from "../../app/domain/catalogue.ts";
import { entryMessage, stakeMessage } from "../../app/domain/messages.ts";
import { addressOfPrivateKey, newPrivateKey, signMessage } from "../../app/domain/signature.ts";
import { createSql, type Sql } from "../../db/client.server.ts";
import { demoCatalogue } from "../../db/demo-catalogue.ts";
import { migrate } from "../../db/migrate.server.ts";
import { importCatalogue } from "../../db/queries/catalogue.server.ts";
import { startSimulatedChain, type SimulatedChain } from "../../indexer/simulated-chain.server.ts";
import { ensureAppBuild, ensureCompiledPrograms } from "../support/app-server.ts";
import { NGINX, startNginx, type NginxProxy } from "../support/nginx-proxy.ts";
import { freePort, sleep } from "../support/net.ts";
import { PG_BIN, startCluster, type Cluster } from "../support/pg-cluster.ts";

if (process.env.CI && (!PG_BIN || !NGINX)) throw new Error("PostgreSQL or nginx is not installed: .ci/run installs both for this test");

const ROOT = path.resolve(import.meta.dirname, "../..");
const UNITS = 2400; // ledger units per point
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

type Wallet = { address: string; sign(message: string): string };
function newWallet(): Wallet {
  const key = newPrivateKey();
  return { address: addressOfPrivateKey(key), sign: (message) => signMessage(key, message) };
}

/** A process started through npm in its own process group, so a SIGKILL reaches npm and node alike. */
type Service = { name: string; child: ChildProcess; output: () => string; exited: Promise<void> };

/** A compiled program as `npm run start:web` / `start:indexer` runs it (plain node, no TypeScript tooling). */
function startService(name: string, program: string[], env: Record<string, string>): Service {
  let output = "";
  const child = spawn(process.execPath, program, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), npm_config_update_notifier: "false", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { name, child, output: () => output, exited };
}

function killGroup(service: Service, signal: NodeJS.Signals): void {
  try {
    process.kill(-service.child.pid!, signal);
  } catch {
    // already gone
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, describeFailure = () => ""): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${describeFailure()}`);
    await sleep(50);
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });
}

type Answer = {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  /** The parsed JSON answer; null when the answer is not JSON. */
  body: unknown;
  /** The replica (host:port) that answered: the last upstream nginx tried. */
  servedBy: string;
  tried: string[];
  /** Date.now() when the answer was complete. */
  at: number;
};

type SendOptions = { json?: unknown; form?: FormData; cookie?: string };

describe.skipIf(!PG_BIN || !NGINX)("two web replicas and one indexer behind a TLS proxy", () => {
  let cluster: Cluster;
  let sql: Sql;
  let chain: SimulatedChain;
  let proxy: NginxProxy;
  let agent: https.Agent;
  let uploadDir: string;
  const services: Service[] = [];
  const web: { service: Service; port: number; host: string }[] = [];
  const admin = newWallet();
  const holder = newWallet();
  const other = newWallet();
  let holderItems: CatalogueItem[];

  /** One request through the proxy, as the site's own page would send it (Origin, JSON), bounded to 10 s. */
  async function send(method: string, route: string, { json, form, cookie }: SendOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    let payload: Buffer | undefined;
    if (form) {
      const request = new Request(proxy.url, { method: "POST", body: form });
      payload = Buffer.from(await request.arrayBuffer());
      headers["content-type"] = request.headers.get("content-type")!;
    } else if (method !== "GET" && method !== "HEAD") {
      payload = Buffer.from(JSON.stringify(json ?? {}));
      headers["content-type"] = "application/json";
    }
    if (payload) headers["content-length"] = String(payload.length);
    if (method !== "GET" && method !== "HEAD") headers.origin = proxy.url;
    if (cookie) headers.cookie = cookie;
    return new Promise<Answer>((resolve, reject) => {
      const request = https.request(
        new URL(route, proxy.url),
        { method, headers, agent, signal: AbortSignal.timeout(10_000) },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            const bytes = Buffer.concat(chunks);
            let body: unknown = null;
            if (String(response.headers["content-type"]).startsWith("application/json")) body = JSON.parse(bytes.toString("utf8"));
            const tried = String(response.headers["x-test-upstream"] ?? "")
              .split(/,\s*/)
              .filter(Boolean);
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              bytes,
              body,
              servedBy: tried.at(-1) ?? "",
              tried,
              at: Date.now(),
            });
          });
        },
      );
      request.on("error", reject);
      request.end(payload);
    });
  }

  const name = (host: string) => web.find((replica) => replica.host === host)?.service.name ?? host;

  beforeAll(async () => {
    const catalogue = demoCatalogue();
    const items = (["spooks", "spook-society"] as const).flatMap((collection) =>
      catalogue.filter((item) => item.collection === collection && item.number <= 4),
    );
    holderItems = items.filter((item) => item.collection === "spooks" && item.number <= 2);
    const owners = new Map(items.map((item) => [item.inscriptionId, holderItems.includes(item) ? holder.address : other.address]));

    let buildDir: string;
    let programs: string;
    [cluster, chain, buildDir, programs] = await Promise.all([
      startCluster(),
      startSimulatedChain({ owners }),
      ensureAppBuild(),
      ensureCompiledPrograms(),
    ]);
    sql = createSql(cluster.url(), { max: 2 });
    await migrate(sql);
    await importCatalogue(sql, items);

    const dataDir = fs.mkdtempSync(path.join(cluster.dir, "services-"));
    uploadDir = path.join(dataDir, "uploads"); // one folder for both replicas, as a shared volume would be
    const ports = [await freePort(), await freePort()];
    proxy = await startNginx(ports.map((port) => `http://127.0.0.1:${port}`));
    agent = new https.Agent({ ca: proxy.cert, keepAlive: true, maxSockets: 4 });

    const common = {
      NODE_ENV: "production",
      DATABASE_URL: cluster.url(),
      ORD_URL: chain.url,
      ADMIN_ADDRESS: admin.address,
      LOG_LEVEL: "info",
    };
    for (const [index, port] of ports.entries()) {
      const replicaName = `web-${"ab"[index]}`;
      const service = startService(replicaName, [path.join(programs, "start.js"), "--no-indexer"], {
        ...common,
        PUBLIC_URL: proxy.url,
        TRUST_PROXY: "loopback",
        // The reads streamed through the kill come from one client faster than a person: no general limit here.
        RATE_LIMIT_READS_PER_MIN: "0",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: path.join(dataDir, replicaName),
        UPLOAD_DIR: uploadDir,
        SPOOKS_BUILD_DIR: buildDir,
      });
      services.push(service);
      web.push({ service, port, host: `127.0.0.1:${port}` });
    }
    const indexer = startService("indexer", [path.join(programs, "indexer.js")], {
      ...common,
      DATA_DIR: path.join(dataDir, "indexer"),
      INDEXER_ACCRUAL_CRON: "0 0 1 1 *", // only the start-up catch-up: no hour credited mid-test
      INDEXER_RETRIES: "0",
    });
    services.push(indexer);

    const logs = () => services.map((service) => `--- ${service.name}:\n${service.output()}`).join("\n");
    const listening = (service: Service) => service.output().includes('"msg":"listening"');
    const exited = () => services.some((service) => service.child.exitCode !== null || service.child.signalCode !== null);
    await until(
      "both replicas to listen",
      () => {
        if (exited()) throw new Error(`a service exited during start-up:\n${logs()}`);
        return web.every(({ service }) => listening(service));
      },
      60_000,
      logs,
    );
    // The indexer's start-up sync pass writes who owns what (the holder can stake only then).
    await until(
      "the indexer's start-up sync",
      async () => {
        if (exited()) throw new Error(`a service exited during start-up:\n${logs()}`);
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ownership where owner_address = ${holder.address}`;
        return row.n === holderItems.length;
      },
      30_000,
      logs,
    );
  }, 150_000);

  afterAll(async () => {
    for (const service of services) killGroup(service, "SIGKILL");
    await Promise.race([Promise.all(services.map((service) => service.exited)), sleep(5_000)]);
    agent?.destroy();
    await proxy?.stop();
    await chain?.close();
    await sql?.end({ timeout: 1 }).catch(() => {});
    await cluster?.destroy();
  }, 30_000);

  let cookie = "";
  let minted = ""; // the replica that minted the session
  let imagePath = "";
  let giveawayId = 0;
  let killedAt = 0;
  let killed = "";
  let survivor = "";

  it("serves through both replicas in turn", async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 6; i++) answers.push(await send("GET", "/api/health"));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ ok: true, database: "ok", indexer: { syncState: "ok" } });
      expect(answer.headers["strict-transport-security"]).toBe("max-age=31536000"); // https as the proxy says
    }
    const hosts = answers.map((answer) => answer.servedBy);
    expect(new Set(hosts)).toEqual(new Set(web.map((replica) => replica.host)));
    for (let i = 1; i < hosts.length; i++) expect(hosts[i], "round robin").not.toBe(hosts[i - 1]);
  });

  it("a challenge issued by one replica signs in on the other, and the session minted there works on the first", async () => {
    const challenge = await send("GET", `/api/auth/challenge?address=${admin.address}`);
    expect(challenge.status).toBe(200);
    const { message } = challenge.body as { message: string };
    expect(message).toContain(`\nURI: ${proxy.url}\n`);
    const session = await send("POST", "/api/auth/session", { json: { address: admin.address, message, signature: admin.sign(message) } });
    expect(session.status).toBe(200);
    expect(session.servedBy).not.toBe(challenge.servedBy);
    const setCookie = ([] as string[]).concat(session.headers["set-cookie"] ?? [])[0] ?? "";
    expect(setCookie).toMatch(/^__Host-spooks_session=[\w-]{40,};.*; Secure$/);
    cookie = setCookie.split(";")[0];
    minted = session.servedBy;

    // Used on the replica that did not mint it (bounded: round robin gets there on the first or second try).
    const onOther: Answer[] = [];
    for (let i = 0; i < 4 && !onOther.some((answer) => answer.servedBy !== minted); i++)
      onOther.push(await send("GET", "/api/admin/users", { cookie }));
    expect(onOther.map((answer) => answer.status)).toEqual(onOther.map(() => 200));
    expect(onOther.some((answer) => answer.servedBy !== minted)).toBe(true);
    // …and the check is real: a forged token is refused there too.
    const forged = await send("GET", "/api/admin/users", { cookie: "__Host-spooks_session=forged-token-forged-token-forged-token-xx" });
    expect(forged.status).toBe(401);
  });

  it("the admin uploads an image (readable through either replica), creates a giveaway with it and gives points", async () => {
    const form = new FormData();
    form.append("image", new Blob([PNG], { type: "image/png" }), "prize.png");
    const upload = await send("POST", "/api/upload-image", { form, cookie });
    expect(upload.status).toBe(200);
    imagePath = (upload.body as { filePath: string }).filePath;
    expect(imagePath).toMatch(/^\/uploads\/[0-9a-f-]{36}\.png$/);

    const reads: Answer[] = [];
    for (let i = 0; i < 4 && new Set(reads.map((read) => read.servedBy)).size < 2; i++) reads.push(await send("GET", imagePath));
    expect(new Set(reads.map((read) => read.servedBy)).size).toBe(2);
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.headers["content-type"]).toBe("image/png");
      expect(read.bytes.equals(PNG)).toBe(true);
    }

    const created = await send("POST", "/api/giveaways", {
      cookie,
      json: {
        title: "Replica Spook",
        description: "Won through either replica",
        imageUrl: imagePath,
        pointsCost: 50,
        endDate: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Replica Spook", imageUrl: imagePath, pointsCost: 50, active: true });
    giveawayId = (created.body as { id: number }).id;

    const points = await send("POST", "/api/add-permanent-points", {
      cookie,
      json: { address: holder.address, amount: 300, description: "replica test" },
    });
    expect(points.status).toBe(200);
    expect(points.body).toMatchObject({ success: true, address: holder.address, totalPoints: 300 });
  });

  it("goes on through the survivor when the replica that minted the session is SIGKILLed mid-run", async () => {
    const stake = (item: CatalogueItem) => {
      const message = stakeMessage("stake", item.number, new Date());
      return send("POST", "/api/stake", {
        json: { address: holder.address, inscriptionId: item.inscriptionId, message, signature: holder.sign(message) },
      });
    };
    const first = await stake(holderItems[0]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, rewards: { stakedCount: 1 } });

    // Reads stream through the proxy while the kill happens.
    const stream: Answer[] = [];
    const failures: string[] = [];
    let streaming = true;
    const reader = (async () => {
      while (streaming) {
        await send("GET", `/api/giveaways/${giveawayId}`).then(
          (answer) => stream.push(answer),
          (error: Error) => failures.push(error.message),
        );
        await sleep(20);
      }
    })();
    try {
      await until("reads served by both replicas", () => new Set(stream.map((answer) => answer.servedBy)).size === 2, 5_000);

      const victim = web.find((replica) => replica.host === minted)!;
      killed = victim.host;
      survivor = web.find((replica) => replica !== victim)!.host;
      killedAt = Date.now();
      killGroup(victim.service, "SIGKILL");
      await Promise.race([victim.service.exited, sleep(5_000)]);
      expect(victim.service.child.signalCode).toBe("SIGKILL");
      await until("the killed replica's port to close", () => refusesConnections(victim.port), 5_000);

      // The flow continues (each call through the survivor).
      const second = await stake(holderItems[1]);
      const firstWriteMs = second.at - killedAt;
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ success: true, rewards: { stakedCount: 2 } });

      const entryAt = new Date();
      const message = entryMessage(giveawayId, 2, entryAt);
      const entry = await send("POST", "/api/giveaways/enter", {
        json: { giveawayId, address: holder.address, tickets: 2, message, signature: holder.sign(message) },
      });
      expect(entry.status).toBe(200);
      expect(entry.body).toMatchObject({ success: true, entry: { giveawayId, address: holder.address, tickets: 2 } });

      const users = await send("GET", "/api/admin/users", { cookie }); // the session minted on the dead replica
      expect(users.status).toBe(200);
      const giveaway = await send("GET", `/api/giveaways/${giveawayId}`);
      expect(giveaway.body).toMatchObject({ id: giveawayId, imageUrl: imagePath, entriesCount: 1, ticketsCount: 2 });
      const image = await send("GET", imagePath);
      expect(image.status).toBe(200);
      expect(image.bytes.equals(PNG)).toBe(true);
      const entries = await send("GET", `/api/giveaways/entries/user/${holder.address}`);
      expect(entries.body).toEqual([expect.objectContaining({ giveawayId, tickets: 2 })]);

      for (const answer of [second, entry, users, giveaway, image, entries]) expect(answer.servedBy).toBe(survivor);
      await sleep(200); // a few more reads after the flow
      streaming = false;
      await reader;

      // No read failed across the kill (nginx passed the refused ones to the survivor).
      expect(failures).toEqual([]);
      expect(stream.filter((answer) => answer.status !== 200)).toEqual([]);
      const after = stream.filter((answer) => answer.at > killedAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((answer) => answer.servedBy === survivor)).toBe(true);
      const firstSuccessMs = after[0].at - killedAt;
      console.log(
        `kill of ${name(killed)} → next successful request: ${firstSuccessMs} ms (a read; the first write, sent once the port was closed: ${firstWriteMs} ms); ` +
          `${after.filter((answer) => answer.tried.includes(killed)).length} requests found ${name(killed)} refusing and went on to ${name(survivor)}`,
      );
      expect(firstSuccessMs).toBeLessThan(2_000);
    } finally {
      streaming = false;
      await reader;
    }
  });

  it("leaves every effect in the database exactly once, and the proxy's log shows both replicas served", async () => {
    const ledger = await sql<{ kind: string; amount: string; reference: string | null }[]>`
      select kind, amount::text as amount, reference from points_ledger where address = ${holder.address} order by id`;
    expect(ledger.map(({ kind, amount }) => ({ kind, amount: Number(amount) }))).toEqual([
      { kind: "admin_add", amount: 300 * UNITS },
      { kind: "giveaway_entry", amount: -100 * UNITS }, // 2 tickets × 50, spent once
    ]);
    const [balance] = await sql<{ units: string }[]>`select units::text as units from wallet_balances where address = ${holder.address}`;
    expect(Number(balance.units)).toBe(200 * UNITS);

    const stakes = await sql<{ inscriptionId: string; endedAt: Date | null }[]>`
      select i.inscription_id, s.ended_at from stakes s join items i on i.id = s.item_id where s.address = ${holder.address} order by i.number`;
    expect(stakes).toEqual(holderItems.map((item) => ({ inscriptionId: item.inscriptionId, endedAt: null })));

    const entries = await sql`select giveaway_id, tickets, cost_units::text as cost_units from giveaway_entries`;
    expect(entries).toEqual([{ giveawayId, tickets: 2, costUnits: String(100 * UNITS) }]);
    expect(await sql`select id, image_url from giveaways`).toEqual([{ id: giveawayId, imageUrl: imagePath }]);
    expect(await sql`select action from used_signatures order by used_at`).toHaveLength(3); // two stakes, one entry
    expect(await sql`select address from sessions`).toEqual([{ address: admin.address }]);
    expect(await sql`select actor, actor_address, action from audit_log where actor = 'web' order by action`).toEqual([
      { actor: "web", actorAddress: admin.address, action: "auth.sign-in" },
      { actor: "web", actorAddress: admin.address, action: "giveaway.create" },
      { actor: "web", actorAddress: admin.address, action: "points.add" },
      { actor: "web", actorAddress: admin.address, action: "upload.image" },
    ]);
    expect(fs.readdirSync(uploadDir)).toEqual([path.basename(imagePath)]);

    const log = proxy.requests();
    const count = (host: string, requests = log) => requests.filter((request) => request.upstreams.at(-1) === host).length;
    const before = log.filter((request) => request.at <= killedAt);
    const after = log.filter((request) => request.at > killedAt);
    const perReplica = web.map(
      ({ host, service }) => `${service.name} ${count(host)} (${count(host, before)} before the kill, ${count(host, after)} after)`,
    );
    console.log(`requests per replica: ${perReplica.join(", ")}; ${log.length} in all`);
    for (const { host } of web) expect(count(host, before)).toBeGreaterThan(0);
    expect(count(killed, after)).toBe(0);
    expect(count(survivor, after)).toBeGreaterThan(0);
    expect(log.filter((request) => request.status >= 500)).toEqual([]);
  });
});
