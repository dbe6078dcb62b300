/**
 * /metrics on the private operations port (server/ops-server.ts): Prometheus text with every family the
 * operators' dashboards and alerts read; counters that move with the requests, passes and refusals they count,
 * labelled by route pattern, never by raw path; and nothing of it on the public port (metrics-stalled.test.ts:
 * an answer while the database stalls).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../app/utils/logger.server.ts";
import { createSql, type Sql } from "../db/client.server.ts";
import { accruePending } from "../indexer/accrual.server.ts";
import { syncOnce } from "../indexer/sync.server.ts";
import { indexerConfig } from "../indexer/test-support.ts";
import { startTestServer, type TestServer } from "../tests/support/app-server.ts";
import { series } from "../tests/support/metrics-text.ts";
import { createTestDatabase } from "../tests/support/test-database.ts";
import { matchRoute, routePatterns } from "./http-metrics.ts";
import { startOpsServer, type OpsServer } from "./ops-server.ts";

describe("metrics", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let ops: OpsServer;
  let downSql: Sql;
  let down: TestServer;
  const scrape = async () => {
    const response = await fetch(`${ops.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const admin = "DCH3XaN5CcskGZuDqS14Sr6mnPQEPmvWh7";
    server = await startTestServer({ sql: db.sql, adminAddress: admin, env: { RATE_LIMIT_SIGNIN_PER_MIN: "2" } });
    const options = { host: "127.0.0.1", version: "1.2.3", indexerStaleAfterSeconds: 600, logger: silentLogger };
    ops = await startOpsServer({ ...options, port: 0, role: "web+indexer", sql: db.sql });
    downSql = createSql(db.url, { max: 1 });
    down = await startTestServer({ sql: downSql, adminAddress: admin });
  });
  afterAll(async () => {
    await ops?.close();
    await server?.close();
    await down?.close();
    await db?.close();
  });

  it("has every family: HTTP, rate limits, database, indexer, ord, accrual, process", async () => {
    await fetch(`${server.url}/api/live`);
    await syncOnce({ sql: db.sql, ordUrl: "http://127.0.0.1:9", config: indexerConfig({ retries: 0 }), source: "cli", wait: true });
    await accruePending({ sql: db.sql, maxHours: 1, source: "cli" });
    const text = await scrape();
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(families).toEqual(
      expect.arrayContaining([
        "spooks_info gauge",
        "spooks_http_requests_total counter",
        "spooks_http_request_duration_seconds histogram",
        "spooks_http_requests_in_flight gauge",
        "spooks_rate_limit_refusals_total counter",
        "spooks_db_up gauge",
        "spooks_db_probe_seconds gauge",
        "spooks_db_pool_max_connections gauge",
        "spooks_db_errors_total counter",
        "spooks_indexer_passes_total counter",
        "spooks_indexer_pass_duration_seconds histogram",
        "spooks_indexer_items_checked_total counter",
        "spooks_indexer_owners_changed_total counter",
        "spooks_indexer_stakes_ended_total counter",
        "spooks_indexer_item_errors_total counter",
        "spooks_indexer_healthy gauge",
        "spooks_indexer_last_applied_pass_age_seconds gauge",
        "spooks_indexer_stale_after_seconds gauge",
        "spooks_indexer_held_back_passes_in_a_row gauge",
        "spooks_indexer_last_pass_state gauge",
        "spooks_ord_request_duration_seconds histogram",
        "spooks_ord_request_failures_total counter",
        "spooks_accrual_passes_total counter",
        "spooks_accrual_pass_duration_seconds histogram",
        "spooks_accrual_hours_credited_total counter",
        "process_cpu_seconds_total counter",
        "process_resident_memory_bytes gauge",
        "nodejs_eventloop_lag_seconds gauge",
      ]),
    );
    expect(series(text, "spooks_info", { role: "web+indexer", version: "1.2.3" })).toBe(1);
    expect(series(text, "spooks_db_up")).toBe(1);
    expect(series(text, "spooks_db_pool_max_connections")).toBeGreaterThan(0);
    // The ord server is down: the pass is held back, which the indexer's figures say, and why.
    expect(series(text, "spooks_indexer_passes_total", { state: "unavailable" })).toBe(1);
    expect(series(text, "spooks_ord_request_failures_total", { endpoint: "status", reason: "network" })).toBe(1);
    expect(series(text, "spooks_indexer_healthy")).toBe(0);
    expect(series(text, "spooks_indexer_last_applied_pass_age_seconds")).toBe(Infinity);
    expect(series(text, "spooks_indexer_held_back_passes_in_a_row")).toBe(1);
    expect(series(text, "spooks_indexer_last_pass_state", { state: "unavailable" })).toBe(1);
    expect(series(text, "spooks_indexer_last_pass_state", { state: "ok" })).toBe(0);
    expect(series(text, "spooks_accrual_passes_total")).toBe(1);
  });

  it("has no Discord sweep figures before the first sweep, then the last sweep's", async () => {
    const names = ["spooks_discord_sweep_difference", "spooks_discord_sweep_members", "spooks_discord_sweep_absent"];
    const before = await scrape();
    for (const name of [...names, "spooks_discord_sweep_age_seconds"]) expect(series(before, name), name).toBeUndefined();
    await db.sql`
      insert into discord_sweeps (started_at, finished_at, source, members, absent, added, removed, difference, requests, errors)
      values (now() - interval '2 minutes', now() - interval '1 minute', 'cli', 12, 2, 1, 0, 1, 14, 0)`;
    const after = await scrape();
    expect(names.map((name) => series(after, name))).toEqual([1, 12, 2]);
    expect(series(after, "spooks_discord_sweep_age_seconds")).toBeGreaterThanOrEqual(60);
  });

  it("counts requests by route pattern and status, never by raw path, and times them", async () => {
    const labels = { method: "GET", route: "/api/giveaways/:id", status: "404" };
    const before = series(await scrape(), "spooks_http_requests_total", labels) ?? 0;
    for (const id of [9001, 9002, 9003]) expect((await fetch(`${server.url}/api/giveaways/${id}`)).status).toBe(404);
    // A request is counted when the server finishes sending it, which can come just after the client has read it.
    await expect.poll(async () => series(await scrape(), "spooks_http_requests_total", labels)).toBe(before + 3);
    const text = await scrape();
    expect(series(text, "spooks_http_request_duration_seconds_count", labels)).toBe(before + 3);
    expect(series(text, "spooks_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(before + 3);
    // The raw path never becomes a label. (Checked as a path: a figure such as 0.16129001 holds "9001" too.)
    expect(text).not.toMatch(/giveaways\/900[123]/);
    // Answered, so no longer in flight (server/start.test.ts sees one held in flight).
    await expect.poll(async () => series(await scrape(), "spooks_http_requests_in_flight")).toBe(0);
  });

  it("counts rate-limit refusals", async () => {
    const route = { route: "/api/auth/challenge" };
    const before = series(await scrape(), "spooks_rate_limit_refusals_total", route) ?? 0;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${server.url}/api/auth/challenge`)).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    await expect.poll(async () => series(await scrape(), "spooks_rate_limit_refusals_total", route)).toBe(before + 2);
  });

  it("counts database failures met by requests", async () => {
    await downSql.end();
    const before = series(await scrape(), "spooks_db_errors_total", { kind: "unavailable" }) ?? 0;
    expect((await fetch(`${down.url}/api/leaderboard`)).status).toBe(503);
    expect((await fetch(`${down.url}/api/ready`)).status).toBe(503);
    await expect.poll(async () => series(await scrape(), "spooks_db_errors_total", { kind: "unavailable" })).toBe(before + 2);
  });

  it("is not served on the public port, and the operations port serves nothing else", async () => {
    const publicAnswer = await fetch(`${server.url}/metrics`);
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.text()).not.toContain("spooks_http_requests_total");
    expect((await fetch(`${server.url}/api/metrics`)).status).toBe(404);
    expect((await fetch(`${ops.url}/`)).status).toBe(404);
    expect((await fetch(`${ops.url}/metrics`, { method: "POST" })).status).toBe(405);
  });

  it("names routes as React Router matches them", () => {
    const patterns = routePatterns({
      root: { id: "root", path: "" },
      layout: { id: "layout", parentId: "root" },
      home: { id: "home", parentId: "layout", index: true },
      rewards: { id: "rewards", parentId: "layout", path: "rewards" },
      enter: { id: "enter", parentId: "root", path: "api/giveaways/enter" },
      giveaway: { id: "giveaway", parentId: "root", path: "api/giveaways/:id" },
      apiMissing: { id: "apiMissing", parentId: "root", path: "api/*" },
      missing: { id: "missing", parentId: "root", path: "*" },
    } as never);
    expect(matchRoute(patterns, "/")).toBe("/");
    expect(matchRoute(patterns, "/_root.data")).toBe("/");
    expect(matchRoute(patterns, "/rewards.data")).toBe("/rewards");
    expect(matchRoute(patterns, "/Rewards/")).toBe("/rewards");
    expect(matchRoute(patterns, "/api/giveaways/enter")).toBe("/api/giveaways/enter");
    expect(matchRoute(patterns, "/api/giveaways/12")).toBe("/api/giveaways/:id");
    expect(matchRoute(patterns, "/api/giveaways/12/x")).toBe("/api/*");
    expect(matchRoute(patterns, "/nowhere/at/all")).toBe("/*");
  });
});
