/**
 * The private operations listener, apart from the public port so that nothing on it is ever reachable through
 * the proxy: METRICS_PORT at METRICS_HOST (loopback unless set; in compose the service network, published
 * nowhere and not proxied by Caddy). Started by the web server and by the indexer when METRICS_PORT is set.
 *   GET /metrics   Prometheus text: this process's metrics (app/utils/metrics.server.ts), plus what is read at
 *                  each scrape: a probe of the database through the pool, and in an indexer the state of the
 *                  ownership passes from the database.
 *   GET /health    indexer processes: 200 when an ownership pass was applied within INDEXER_STALE_AFTER_S, 503
 *                  with the reason otherwise (the container health check of the indexer asks it).
 * Anything else is 404.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Gauge } from "prom-client";
import { judgeIndexer, type IndexerVerdict } from "../app/domain/indexer-health.ts";
import { now } from "../app/domain/clock.ts";
import type { Logger } from "../app/utils/logger.server.ts";
import { addScrapeGauges, enableMetrics, type Role } from "../app/utils/metrics.server.ts";
import { isDatabaseUnavailable } from "../db/availability.server.ts";
import type { Sql } from "../db/client.server.ts";
import { indexerHealth, type IndexerHealth } from "../db/queries/health.server.ts";

export type OpsServerOptions = {
  port: number;
  host: string;
  role: Role;
  version: string;
  sql: Sql;
  /** Indexer processes: when the indexer counts as stale (INDEXER_STALE_AFTER_S). */
  indexerStaleAfterSeconds?: number;
  logger: Logger;
};

export type OpsServer = { url: string; close(): Promise<void> };

/**
 * How long a scrape waits on any one read of the database. A stalled database (a held lock, a lost network) must
 * not stall the scrape: it answers within this with `spooks_db_up` 0, the gauges read from the database empty,
 * and the requests in flight that the stall holds.
 */
const PROBE_TIMEOUT_MS = 2000;

/** `work`, or a rejection once PROBE_TIMEOUT_MS have passed without its answer. */
async function withinProbeTimeout<T>(work: PromiseLike<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("probe timed out")), PROBE_TIMEOUT_MS)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `select 1` through the pool: whether it answered and how long it took, queueing for a connection included. */
async function probeDatabase(sql: Sql): Promise<{ up: boolean; seconds: number }> {
  const started = performance.now();
  const up = await withinProbeTimeout(sql`select 1`).then(
    () => true,
    () => false,
  );
  return { up, seconds: (performance.now() - started) / 1000 };
}

/** The indexer's record and verdict, read at most once per second (one scrape reads several gauges). */
function indexerReader(sql: Sql, staleAfterSeconds: number): () => Promise<IndexerReading> {
  let last: { at: number; value: Promise<IndexerReading> } | undefined;
  return () => {
    if (!last || performance.now() - last.at > 1000) {
      const value = withinProbeTimeout(indexerHealth(sql)).then((record) => ({
        record,
        verdict: judgeIndexer(record, staleAfterSeconds, now()),
      }));
      value.catch(() => (last = undefined));
      last = { at: performance.now(), value };
    }
    return last.value;
  };
}

const SYNC_STATES = ["ok", "rewinding", "stalled", "unavailable"] as const;

function watchDatabase(sql: Sql): void {
  let probe: Promise<{ up: boolean; seconds: number }> | undefined;
  const probeOnce = () => (probe ??= probeDatabase(sql).finally(() => setTimeout(() => (probe = undefined), 500)));
  addScrapeGauges([
    {
      name: "spooks_db_up",
      help: "Whether the database answered `select 1` through this process's pool at this scrape (1) or not (0).",
      collect: async (gauge) => gauge.set((await probeOnce()).up ? 1 : 0),
    },
    {
      name: "spooks_db_probe_seconds",
      help: "How long that probe took, waiting for a free pool connection included (a full pool shows here).",
      collect: async (gauge) => gauge.set((await probeOnce()).seconds),
    },
    {
      name: "spooks_db_pool_max_connections",
      help: "The most connections this process's pool opens.",
      collect: (gauge) => gauge.set(sql.options.max),
    },
  ]);
}

/**
 * No series for this unlabelled gauge at this scrape: nothing was read. (prom-client prints an unlabelled gauge it
 * was given no figure as 0, which would read as a real 0: no roles to change, no passes held back, a sweep just now.)
 */
function withoutSeries(gauge: Gauge): void {
  gauge.remove();
}

/** Discord holder roles (issue 25): read from the database at each scrape; absent until the first sweep. */
function watchDiscord(sql: Sql): void {
  const sweep = async () =>
    (
      await withinProbeTimeout(
        sql<{ difference: number; members: number; absent: number; errors: number; age: number }[]>`
        select difference, members, absent, errors, extract(epoch from now() - finished_at)::float8 as age
        from discord_sweeps order by id desc limit 1`,
      ).catch(() => [])
    )[0];
  const fromSweep = (pick: (row: NonNullable<Awaited<ReturnType<typeof sweep>>>) => number) => async (gauge: Gauge) => {
    const row = await sweep();
    if (row) gauge.set(pick(row));
    else withoutSeries(gauge);
  };
  addScrapeGauges([
    {
      name: "spooks_discord_sweep_difference",
      help: "Role changes the last Discord reconciliation sweep found needed (members' rules' roles differing from the rules): 0 in steady state.",
      collect: fromSweep((row) => row.difference),
    },
    { name: "spooks_discord_sweep_members", help: "Linked members the last sweep read.", collect: fromSweep((row) => row.members) },
    {
      name: "spooks_discord_sweep_absent",
      help: "Linked members not in the Discord server at the last sweep.",
      collect: fromSweep((row) => row.absent),
    },
    { name: "spooks_discord_sweep_age_seconds", help: "Seconds since the last sweep finished.", collect: fromSweep((row) => row.age) },
    {
      name: "spooks_discord_problems",
      help: "What Discord refused that a person must fix: roles the bot cannot assign, a refused bot token (the sync is stopped).",
      labelNames: ["kind"],
      collect: async (gauge) => {
        gauge.reset();
        const rows = await withinProbeTimeout(
          sql<{ kind: string; count: number }[]>`select kind, count(*)::int as count from discord_problems group by kind`,
        ).catch(() => []);
        for (const kind of ["role-unassignable", "bad-token"]) gauge.set({ kind }, rows.find((row) => row.kind === kind)?.count ?? 0);
      },
    },
  ]);
}

type IndexerReading = { record: IndexerHealth; verdict: IndexerVerdict };

function watchIndexer(read: () => Promise<IndexerReading>, staleAfterSeconds: number): void {
  // A failed read (database down) leaves a gauge without a series for that scrape, or with the figure `unread`
  // gives it where an alert must see one; spooks_db_up says why.
  const from =
    (pick: (value: IndexerReading, gauge: Gauge) => void, unread: (gauge: Gauge) => void = withoutSeries) =>
    async (gauge: Gauge) => {
      gauge.reset();
      const value = await read().catch(() => null);
      if (value) pick(value, gauge);
      else unread(gauge);
    };
  // A labelled gauge reset has no series already.
  const noLabelledSeries = () => {};
  addScrapeGauges([
    {
      name: "spooks_indexer_healthy",
      help: "1 when an ownership pass was applied within INDEXER_STALE_AFTER_S, else 0 (held-back passes do not count).",
      collect: from(
        ({ verdict }, gauge) => gauge.set(verdict.healthy ? 1 : 0),
        (gauge) => gauge.set(0),
      ),
    },
    {
      name: "spooks_indexer_last_applied_pass_age_seconds",
      help: "Seconds since the last APPLIED ownership pass finished (+Inf before the first, and when the database is unread).",
      // Unread, it is not 0 ("just now"): an alert on the age alone must fire while the database is down.
      collect: from(
        ({ verdict }, gauge) => gauge.set(verdict.appliedAgeSeconds ?? Infinity),
        (gauge) => gauge.set(Infinity),
      ),
    },
    {
      name: "spooks_indexer_stale_after_seconds",
      help: "INDEXER_STALE_AFTER_S: the indexer is unhealthy when no pass was applied for this long.",
      collect: (gauge) => gauge.set(staleAfterSeconds),
    },
    {
      name: "spooks_indexer_held_back_passes_in_a_row",
      help: "Ownership passes held back since the last applied one (the ord server down, rewinding or stalled).",
      collect: from(({ record }, gauge) => gauge.set(record.heldBackPassesInARow)),
    },
    {
      name: "spooks_indexer_last_pass_state",
      help: "The last ownership pass's outcome: 1 for its state (ok, or held back: rewinding, stalled, unavailable), 0 for the others.",
      labelNames: ["state"],
      collect: from(({ record }, gauge) => {
        for (const state of SYNC_STATES) gauge.set({ state }, record.syncState === state ? 1 : 0);
      }, noLabelledSeries),
    },
  ]);
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" }).end(body);
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { sql, role, logger, indexerStaleAfterSeconds } = options;
  const registry = await enableMetrics(role, options.version);
  watchDatabase(sql);
  const readIndexer = role !== "web" && indexerStaleAfterSeconds ? indexerReader(sql, indexerStaleAfterSeconds) : null;
  if (readIndexer && indexerStaleAfterSeconds) watchIndexer(readIndexer, indexerStaleAfterSeconds);
  if (role !== "web") watchDiscord(sql);

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "GET only\n");
    if (path === "/metrics") return send(res, 200, registry.contentType, await registry.metrics());
    if (path === "/health" && readIndexer) {
      try {
        const { record, verdict } = await readIndexer();
        const body = {
          ok: verdict.healthy,
          problem: verdict.problem,
          lastAppliedSyncAt: record.lastAppliedSyncAt,
          syncState: record.syncState,
        };
        return send(res, verdict.healthy ? 200 : 503, "application/json", JSON.stringify(body));
      } catch (error) {
        const problem = `the database is ${isDatabaseUnavailable(error) ? "unreachable" : "failing"}`;
        return send(res, 503, "application/json", JSON.stringify({ ok: false, problem }));
      }
    }
    send(res, 404, "text/plain", "Not found\n");
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      logger.error({ msg: "operations port: request failed", err: error });
      if (!res.headersSent) send(res, 500, "text/plain", "Internal error\n");
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
  logger.info({ msg: "operations port listening", url, paths: readIndexer ? ["/metrics", "/health"] : ["/metrics"] });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
