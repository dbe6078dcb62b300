/** The server itself: its health (for load balancers, container checks and operators) and demo mode's wallets. */
import { z } from "zod";
import { defineRoute, errorBody, timestamp, type ClientAnswer } from "./kit.ts";

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
    heldBackPassesTotal: count,
    lastAccrualHour: timestamp.nullable().meta({ description: "The last hour whose points were credited." }),
    lastAccrualAt: timestamp.nullable().meta({ description: "When that hour's crediting finished." }),
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
    "judge `indexer` yourself). 503 when the database is unreachable or failing, naming which. The container health " +
    "check (server/healthcheck.ts) reads it.",
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
    "and the page signs with them when no MyDoge extension is present. Anywhere else the route does not exist: 404.",
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
    404: { description: "Not in demo mode.", schema: errorBody, example: { message: "Not found" } },
  },
});

export type Health = ClientAnswer<typeof health>;
export type DemoWallets = ClientAnswer<typeof demoWallets>;
export type DemoWallet = DemoWallets["wallets"][number];
