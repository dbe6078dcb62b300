/**
 * /metrics while the database stalls (it takes connections and never answers: a lock held on the embedded
 * database, a lost network). The scrape still answers, within its reads' timeout: the database down, the gauges
 * read from it empty, and the process's own figures (the requests in flight among them). A file of its own: the
 * metrics' registry is one per process, and its database gauges read the first operations server's pool.
 * Before the reads had a timeout (only `select 1` had), the scrape waited on the stalled database until it ended.
 */
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { silentLogger } from "../app/utils/logger.server.ts";
import { createSql, type Sql } from "../db/client.server.ts";
import { series } from "../tests/support/metrics-text.ts";
import { startOpsServer, type OpsServer } from "./ops-server.ts";

const sockets: net.Socket[] = [];
const stalledDatabase = net.createServer((socket) => sockets.push(socket));
let sql: Sql;
let ops: OpsServer;

beforeAll(async () => {
  await new Promise<void>((resolve) => stalledDatabase.listen(0, "127.0.0.1", resolve));
  const { port } = stalledDatabase.address() as net.AddressInfo;
  sql = createSql(`postgres://spooks@127.0.0.1:${port}/spooks`, { max: 1 });
  ops = await startOpsServer({
    host: "127.0.0.1",
    port: 0,
    role: "web+indexer",
    version: "1.2.3",
    sql,
    indexerStaleAfterSeconds: 600,
    logger: silentLogger,
  });
});

afterAll(async () => {
  await ops?.close();
  await sql?.end({ timeout: 0 });
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => stalledDatabase.close(resolve));
});

it("answers while the database stalls: the database down, its gauges empty, the process's own figures there", async () => {
  const response = await fetch(`${ops.url}/metrics`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(sockets.length).toBeGreaterThan(0); // the pool did reach the stalled database
  expect(series(text, "spooks_db_up")).toBe(0);
  // Read from the database: unhealthy, the pass's age +Inf (never 0, "just now"), the others without a series,
  // never a 0 that would read as a figure (no passes held back, no roles to change, a sweep just now).
  expect(series(text, "spooks_indexer_healthy")).toBe(0);
  expect(series(text, "spooks_indexer_last_applied_pass_age_seconds")).toBe(Infinity);
  for (const name of [
    "spooks_indexer_last_pass_state",
    "spooks_indexer_held_back_passes_in_a_row",
    "spooks_discord_sweep_difference",
    "spooks_discord_sweep_members",
    "spooks_discord_sweep_absent",
    "spooks_discord_sweep_age_seconds",
  ]) {
    expect(text, name).toMatch(new RegExp(`^# TYPE ${name} gauge$`, "m"));
    expect(text, name).not.toMatch(new RegExp(`^${name}[{ ]`, "m"));
  }
  expect(series(text, "spooks_http_requests_in_flight")).toBe(0);
  expect(series(text, "spooks_db_pool_max_connections")).toBe(1);
});
