/**
 * Prometheus metrics (prom-client), served only on the private operations port (server/ops-server.ts), never on
 * the public one. Nothing is measured until a server process calls `enableMetrics()`: before that every hook
 * below is a no-op and prom-client is not even loaded, so the CLI and the tests that do not enable them pay
 * nothing. The state lives on globalThis because one process can hold this module twice (the compiled server
 * and the React Router build each carry a copy, as do tsx and vite in development): both must feed one registry.
 *
 * What is measured (docs/decisions.md, "Operations"): HTTP requests by route pattern and status with their
 * latency, and those in flight; rate-limit refusals, the database (a probe through the pool at each scrape,
 * errors met), the indexer (passes by outcome, items checked and changed, age of the last applied pass,
 * held-back passes in a row and why), the ord server's latency and failures by reason, accrual (duration, hours credited), and
 * node's own process metrics.
 */
import type * as Prom from "prom-client";

export type Role = "web" | "indexer" | "web+indexer";

type Metrics = {
  prom: typeof Prom;
  registry: Prom.Registry;
  httpRequests: Prom.Counter<"method" | "route" | "status">;
  httpDuration: Prom.Histogram<"method" | "route" | "status">;
  httpInFlight: Prom.Gauge;
  rateLimitRefusals: Prom.Counter<"route">;
  dbErrors: Prom.Counter<"kind">;
  indexerPasses: Prom.Counter<"state">;
  indexerPassDuration: Prom.Histogram<"state">;
  indexerItemsChecked: Prom.Counter;
  indexerOwnersChanged: Prom.Counter;
  indexerStakesEnded: Prom.Counter;
  indexerItemErrors: Prom.Counter;
  ordDuration: Prom.Histogram<"endpoint">;
  ordFailures: Prom.Counter<"endpoint" | "reason">;
  accrualPasses: Prom.Counter;
  accrualDuration: Prom.Histogram;
  accrualHours: Prom.Counter;
};

const KEY = Symbol.for("spooks.metrics");
const holder = globalThis as typeof globalThis & { [KEY]?: Metrics };
const current = (): Metrics | undefined => holder[KEY];

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PASS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

function create(prom: typeof Prom, role: Role, version: string): Metrics {
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new prom.Gauge({
    name: "spooks_info",
    help: "This process: its role and the app's version (always 1).",
    labelNames: ["role", "version"],
    registers,
  })
    .labels(role, version)
    .set(1);
  return {
    prom,
    registry,
    httpRequests: new prom.Counter({
      name: "spooks_http_requests_total",
      help: "HTTP requests answered, by method, route pattern (`static` for files) and status.",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    httpDuration: new prom.Histogram({
      name: "spooks_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern and status.",
      labelNames: ["method", "route", "status"],
      buckets: SECONDS,
      registers,
    }),
    httpInFlight: new prom.Gauge({
      name: "spooks_http_requests_in_flight",
      help: "HTTP requests received and not yet answered or dropped (requests held by a stalled database show here).",
      registers,
    }),
    rateLimitRefusals: new prom.Counter({
      name: "spooks_rate_limit_refusals_total",
      help: "Requests refused by a rate limit (429), by route pattern.",
      labelNames: ["route"],
      registers,
    }),
    dbErrors: new prom.Counter({
      name: "spooks_db_errors_total",
      help: "Database failures met: `unavailable` (no connection: a 503) or `failing` (it answered with an error: a 500).",
      labelNames: ["kind"],
      registers,
    }),
    indexerPasses: new prom.Counter({
      name: "spooks_indexer_passes_total",
      help: "Ownership passes run by this process, by outcome: ok (applied), or held back: rewinding, stalled, unavailable.",
      labelNames: ["state"],
      registers,
    }),
    indexerPassDuration: new prom.Histogram({
      name: "spooks_indexer_pass_duration_seconds",
      help: "Duration of an ownership pass, by outcome.",
      labelNames: ["state"],
      buckets: PASS_SECONDS,
      registers,
    }),
    indexerItemsChecked: new prom.Counter({
      name: "spooks_indexer_items_checked_total",
      help: "Items checked by ownership passes.",
      registers,
    }),
    indexerOwnersChanged: new prom.Counter({
      name: "spooks_indexer_owners_changed_total",
      help: "Owner changes applied by ownership passes (first sightings included).",
      registers,
    }),
    indexerStakesEnded: new prom.Counter({
      name: "spooks_indexer_stakes_ended_total",
      help: "Stakes ended because their item moved.",
      registers,
    }),
    indexerItemErrors: new prom.Counter({
      name: "spooks_indexer_item_errors_total",
      help: "Errors recorded by ownership passes: items unread or unrecorded (left as they were), one per pass the ord server did not answer.",
      registers,
    }),
    ordDuration: new prom.Histogram({
      name: "spooks_ord_request_duration_seconds",
      help: "Time of one request to the ord server (each attempt), by endpoint.",
      labelNames: ["endpoint"],
      buckets: SECONDS,
      registers,
    }),
    ordFailures: new prom.Counter({
      name: "spooks_ord_request_failures_total",
      help: "Failed requests to the ord server (each attempt), by endpoint and reason (timeout, network, http, html, invalid, …).",
      labelNames: ["endpoint", "reason"],
      registers,
    }),
    accrualPasses: new prom.Counter({ name: "spooks_accrual_passes_total", help: "Accrual passes run by this process.", registers }),
    accrualDuration: new prom.Histogram({
      name: "spooks_accrual_pass_duration_seconds",
      help: "Duration of an accrual pass.",
      buckets: PASS_SECONDS,
      registers,
    }),
    accrualHours: new prom.Counter({ name: "spooks_accrual_hours_credited_total", help: "Hours credited by accrual.", registers }),
  };
}

/** Starts measuring in this process (idempotent); returns the registry the operations port serves. */
export async function enableMetrics(role: Role, version: string): Promise<Prom.Registry> {
  let metrics = current();
  if (!metrics) {
    const prom = await import("prom-client");
    metrics = current() ?? create(prom, role, version);
    holder[KEY] = metrics;
  }
  return metrics.registry;
}

/** Stops measuring: the next `enableMetrics` starts afresh, as a new process does (tests that share a process). */
export function forgetMetrics(): void {
  delete holder[KEY];
}

/** Metrics whose value is read at each scrape (`collect`), e.g. from the database. */
export function addScrapeGauges(
  gauges: { name: string; help: string; labelNames?: string[]; collect: (gauge: Prom.Gauge) => Promise<void> | void }[],
): void {
  const metrics = current();
  if (!metrics) return;
  for (const { name, help, labelNames = [], collect } of gauges) {
    if (metrics.registry.getSingleMetric(name)) continue;
    new metrics.prom.Gauge({
      name,
      help,
      labelNames,
      registers: [metrics.registry],
      collect() {
        return collect(this);
      },
    });
  }
}

// Hooks (no-ops until enableMetrics) ---------------------------------------------------------------------

export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const metrics = current();
  if (!metrics) return;
  const labels = { method, route, status: String(status) };
  metrics.httpRequests.inc(labels);
  metrics.httpDuration.observe(labels, seconds);
  if (status === 429) metrics.rateLimitRefusals.inc({ route });
}

/** A request received: counted in flight until the returned function is called, once, when its answer ends. */
export function trackRequestInFlight(): () => void {
  const metrics = current();
  if (!metrics) return () => {};
  metrics.httpInFlight.inc();
  return () => metrics.httpInFlight.dec();
}

export function countDatabaseError(kind: "unavailable" | "failing"): void {
  current()?.dbErrors.inc({ kind });
}

export type PassFigures = {
  state: string;
  seconds: number;
  itemsChecked: number;
  ownersChanged: number;
  stakesEnded: number;
  errors: number;
};

export function observeSyncPass({ state, seconds, itemsChecked, ownersChanged, stakesEnded, errors }: PassFigures): void {
  const metrics = current();
  if (!metrics) return;
  metrics.indexerPasses.inc({ state });
  metrics.indexerPassDuration.observe({ state }, seconds);
  metrics.indexerItemsChecked.inc(itemsChecked);
  metrics.indexerOwnersChanged.inc(ownersChanged);
  metrics.indexerStakesEnded.inc(stakesEnded);
  metrics.indexerItemErrors.inc(errors);
}

/** One attempt of an ord request; `failure` is its OrdFailureReason when it failed. */
export function observeOrdRequest(endpoint: string, seconds: number, failure?: string): void {
  const metrics = current();
  if (!metrics) return;
  metrics.ordDuration.observe({ endpoint }, seconds);
  if (failure) metrics.ordFailures.inc({ endpoint, reason: failure });
}

export function observeAccrualPass(seconds: number, hoursCredited: number): void {
  const metrics = current();
  if (!metrics) return;
  metrics.accrualPasses.inc();
  metrics.accrualDuration.observe(seconds);
  metrics.accrualHours.inc(hoursCredited);
}
