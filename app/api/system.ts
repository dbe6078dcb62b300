/** The server itself: its health (for load balancers, container checks and operators) and demo mode's wallets. */
import { z } from "zod";
import { defineRoute, timestamp, type ClientAnswer, errorAnswer } from "./kit.ts";

const TAG = "System";

const count = z.number().int().min(0);

export const indexerHealthSchema = z
  .object({
    syncState: z
      .enum(["ok", "rewinding", "stalled", "unavailable"])
      .nullable()
      .meta({
        description:
          "The last ownership pass: `ok` (applied), or held back because the ord server answers from an older state " +
          "(`rewinding`), stopped indexing (`stalled`) or did not answer (`unavailable`); null before the first pass.",
      }),
    syncReason: z.string().nullable().meta({ description: "Why the last pass was held back; null when it was applied." }),
    lastSyncAt: timestamp.nullable().meta({ description: "When the last pass finished." }),
    lastSyncBlockHeight: z.number().int().nullable().meta({ description: "The chain height the last pass read." }),
    lastSyncItemsChecked: count.nullable(),
    lastSyncOwnersChanged: count.nullable(),
    lastSyncStakesEnded: count.nullable().meta({ description: "Stakes the last pass ended because their item moved." }),
    lastSyncErrors: count.nullable(),
    lastAppliedSyncAt: timestamp.nullable().meta({ description: "When the last applied (`ok`) pass finished." }),
    highestBlockCount: z.number().int().nullable().meta({ description: "The highest block count any pass has seen." }),
    heldBackPassesInARow: count.meta({ description: "Passes held back since the last applied one." }),
    heldBackPassesTotal: count.meta({
      description:
        "Passes held back among those kept: housekeeping removes passes older than 30 days, except the last applied one and those after it.",
    }),
    lastAccrualHour: timestamp.nullable().meta({ description: "The last hour whose points were credited." }),
    lastAccrualAt: timestamp.nullable().meta({ description: "When that hour's crediting finished." }),
    healthy: z.boolean().meta({
      description:
        "Whether an ownership pass was applied within INDEXER_STALE_AFTER_S (default 600 s). Held-back passes do not count, so an " +
        "ord server that is down, rewinding or stalled shows here (and in the indexer's container health check) once that time is up.",
    }),
    problem: z.string().nullable().meta({ description: "Why the indexer is not healthy, in words; null when it is." }),
  })
  .meta({ id: "IndexerHealth" });

export const health = defineRoute({
  operationId: "getHealth",
  method: "GET",
  path: "/api/health",
  tag: TAG,
  summary: "Whether the database answers, and the indexer's last sync and accrual",
  description:
    "200 while the database answers, whatever the indexer's state (a held-back or old sync is reported, not failed: " +
    "see `indexer.healthy`). 503 when the database is unreachable or failing, naming which. The detailed view, for " +
    "operators: container liveness is `/api/live`, the proxy's readiness `/api/ready`.",
  auth: "none",
  responses: {
    200: {
      description: "The database answers.",
      schema: z.object({ ok: z.literal(true), database: z.literal("ok"), indexer: indexerHealthSchema }).meta({ id: "Health" }),
      example: {
        ok: true,
        database: "ok",
        indexer: {
          syncState: "ok",
          syncReason: null,
          lastSyncAt: "2026-10-31T17:59:05.000Z",
          lastSyncBlockHeight: 5412345,
          lastSyncItemsChecked: 1883,
          lastSyncOwnersChanged: 2,
          lastSyncStakesEnded: 1,
          lastSyncErrors: 0,
          lastAppliedSyncAt: "2026-10-31T17:59:05.000Z",
          highestBlockCount: 5412346,
          heldBackPassesInARow: 0,
          heldBackPassesTotal: 3,
          lastAccrualHour: "2026-10-31T17:00:00.000Z",
          lastAccrualAt: "2026-10-31T18:00:01.000Z",
          healthy: true,
          problem: null,
        },
      },
    },
    503: {
      description: "The database is unreachable (no connection) or failing (it answers with errors).",
      schema: z
        .object({
          ok: z.literal(false),
          database: z.enum(["unreachable", "failing"]),
          indexer: z.null(),
          message: z.string().meta({ description: "The same, in words." }),
        })
        .meta({ id: "Unhealthy" }),
      example: { ok: false, database: "unreachable", indexer: null, message: "The database is unreachable" },
    },
  },
});

const unavailableBody = z
  .object({ ok: z.literal(false), message: z.string().meta({ description: "What is not ready, in words." }) })
  .meta({ id: "NotReady" });

export const live = defineRoute({
  operationId: "getLive",
  method: "GET",
  path: "/api/live",
  tag: TAG,
  summary: "Liveness: the process answers (no database involved)",
  description:
    "200 whenever this server process can answer a request; it reads nothing, so a database outage does not fail it. " +
    "The container health check of a web replica probes it: a replica is restarted only when it is itself stuck.",
  auth: "none",
  responses: {
    200: { description: "The process answers.", schema: z.object({ ok: z.literal(true) }).meta({ id: "Live" }), example: { ok: true } },
  },
});

export const ready = defineRoute({
  operationId: "getReady",
  method: "GET",
  path: "/api/ready",
  tag: TAG,
  summary: "Readiness: the database answers and every migration this server knows is applied",
  description:
    "For the load balancer (Caddy's health check): 200 when this replica can serve, 503 while its database is unreachable " +
    "or failing, or while a migration this server's code needs is not applied yet (migrations the database has beyond it, " +
    "from a newer release during an upgrade, do not count).",
  auth: "none",
  responses: {
    200: {
      description: "Ready to serve.",
      schema: z.object({ ok: z.literal(true) }).meta({ id: "Ready" }),
      example: { ok: true },
    },
    503: {
      description: "Not ready: the database is unreachable or failing, or migrations are pending.",
      schema: unavailableBody,
      example: { ok: false, message: "The database is unreachable" },
      headers: { "Retry-After": "Seconds after which to ask again." },
    },
  },
});

export const demoWalletSchema = z
  .object({
    label: z.string().meta({ examples: ["Demo holder"] }),
    address: z.string().meta({ description: "The wallet's Dogecoin address." }),
    privateKeyHex: z
      .string()
      .meta({ description: "Its private key (32 bytes, hex): generated once by this server and kept in DATA_DIR, never a real wallet's." }),
  })
  .meta({ id: "DemoWallet" });

export const demoWallets = defineRoute({
  operationId: "getDemoWallets",
  method: "GET",
  path: "/api/demo/wallets",
  tag: TAG,
  summary: "Demo mode only: the built-in wallets the page offers without MyDoge",
  description:
    "In demo mode (no ORD_URL, never in production) the server has a holder wallet and the admin's, with their keys, " +
    "and the page signs with them when no MyDoge extension is present. Anywhere else the route does not exist: 404. " +
    "The keys go only to a client on the server's own machine (a loopback address, behind a proxy named by TRUST_PROXY the client it forwards for): anyone else gets 403.",
  auth: "none",
  responses: {
    200: {
      description: "Demo mode: the demo wallets.",
      schema: z.object({ wallets: z.array(demoWalletSchema).min(1) }),
      example: {
        wallets: [
          { label: "Demo holder", address: "DHy2eGMWsFUmjur4GVeafrioGdHj7HGDyj", privateKeyHex: "4f".repeat(32) },
          { label: "Demo admin", address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", privateKeyHex: "9c".repeat(32) },
        ],
      },
    },
    403: errorAnswer(
      "The client is not on the server's own machine.",
      "The demo wallets' keys are given only to a browser on the server's own machine (a loopback address)",
    ),
    404: errorAnswer("Not in demo mode.", "Not found"),
  },
});

export type Health = ClientAnswer<typeof health>;
export type DemoWallets = ClientAnswer<typeof demoWallets>;
export type DemoWallet = DemoWallets["wallets"][number];
