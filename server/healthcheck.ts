/**
 * The container health check, the image's one HEALTHCHECK: exit 0 when healthy, else exit 1 with one line on
 * stderr saying why; answers within 5 s. One HTTP request to this container's own process, nothing else loaded
 * (no database client), so a probe costs little more than starting node.
 *
 * The role, in this order: the argument (`healthcheck.js web|indexer`); SPOOKS_ROLE; the container's command
 * (PID 1's command line, under tini its arguments: one naming the indexer's program, `build/node/indexer.js`,
 * `indexer/main.ts` or `start:indexer`, is the indexer); else the web server.
 * - web: GET /api/live on PORT answers 200: the process serves. A database outage does not fail it (that is
 *   /api/ready's business, the proxy's probe), so one database blip does not mark every replica unhealthy.
 * - indexer: GET /health on METRICS_PORT (the private operations port) answers 200: the indexer runs, its
 *   database answers, and an ownership pass was APPLIED within INDEXER_STALE_AFTER_S (held-back passes, e.g.
 *   while the ord server is down, do not count).
 */
import fs from "node:fs";
import http from "node:http";
import { detectRole, type Role } from "./health-role.ts";

const TIMEOUT_MS = 5_000;

/** PID 1's arguments: the container's command (with tini as PID 1, what tini runs). */
function containerCommand(): string[] {
  try {
    return fs.readFileSync("/proc/1/cmdline", "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

/** Where this container's own process listens: loopback when it binds every interface, else its address. */
function localHost(host: string | undefined): string {
  return !host || host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
}

function get(host: string, port: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host, port, path, timeout: TIMEOUT_MS, headers: { connection: "close" } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on("error", reject);
  });
}

function reason(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: string; problem?: string };
    return parsed.problem ?? parsed.message ?? "";
  } catch {
    return "";
  }
}

async function check(role: Role, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (role === "web") {
    const answer = await get(localHost(env.HOST), env.PORT || "3000", "/api/live");
    return answer.status === 200 ? null : `/api/live answered ${answer.status}`;
  }
  if (!env.METRICS_PORT) return "METRICS_PORT is not set: the indexer answers its health on that port";
  const answer = await get(localHost(env.METRICS_HOST), env.METRICS_PORT, "/health");
  if (answer.status === 200) return null;
  const why = reason(answer.body);
  return `the indexer's /health answered ${answer.status}${why ? `: ${why}` : ""}`;
}

const args = process.argv.slice(2);
const role = args.length <= 1 ? detectRole(args[0], process.env, containerCommand()) : null;
if (!role) {
  console.error("usage: healthcheck [web | indexer] (or SPOOKS_ROLE=web|indexer)");
  process.exit(2);
}
check(role, process.env)
  .then((problem) => {
    if (problem) console.error(`unhealthy (${role}): ${problem}`);
    process.exit(problem ? 1 : 0);
  })
  .catch((error: Error & { code?: string }) => {
    console.error(`unhealthy (${role}): ${error.code ?? error.message}`);
    process.exit(1);
  });
