/** A wallet's points history (issue 18): public, like the balance it explains. */
import { z } from "zod";
import { CSV_HEADER, HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, LEDGER_KINDS, type LedgerKind } from "../domain/points-history.ts";
import { addressParams, defineRoute, errorBody, timestamp, type ClientAnswer, errorAnswer, logIndexField } from "./kit.ts";

const TAG = "Holdings and rewards";

const blankIsAbsent = (value: unknown) => (value === "" ? undefined : value);

const CURSOR_MESSAGE = "cursor must be the nextCursor of an earlier page";
const KIND_MESSAGE = `kind must be one or more of ${LEDGER_KINDS.join(", ")}, separated by commas`;

export const pointsHistoryQuery = z.object({
  limit: z.preprocess(
    blankIsAbsent,
    z.coerce
      .number({ error: "limit must be a number" })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(HISTORY_MAX_LIMIT, `limit must be at most ${HISTORY_MAX_LIMIT}`)
      .default(HISTORY_DEFAULT_LIMIT)
      .meta({ description: `How many entries a page holds (default ${HISTORY_DEFAULT_LIMIT}).` }),
  ),
  cursor: z.preprocess(
    blankIsAbsent,
    z
      .string()
      .refine((value) => /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value)), CURSOR_MESSAGE)
      .transform(Number)
      .optional()
      .meta({ description: "The `nextCursor` of the page before: the entries older than it." }),
  ),
  kind: z.preprocess(
    blankIsAbsent,
    z
      .string()
      .transform((value) => value.split(",").map((part) => part.trim()))
      .refine((kinds) => kinds.every((kind) => (LEDGER_KINDS as readonly string[]).includes(kind)), KIND_MESSAGE)
      .transform((kinds) => [...new Set(kinds)] as LedgerKind[])
      .optional()
      .meta({ description: `Only these kinds (comma-separated): ${LEDGER_KINDS.join(", ")}. Balances stay the wallet's.` }),
  ),
  format: z.preprocess(
    blankIsAbsent,
    z
      .enum(["csv", "json"], { error: "format must be csv or json" })
      .optional()
      .meta({ description: "`csv` or `json`: the whole history (from `cursor`, of `kind`) as a file to download; `limit` is ignored." }),
  ),
});

export const entryDetailsSchema = z
  .object({
    summary: z.string().meta({ description: "The explanation in words (the CSV's `details`)." }),
    source: z.enum(["recorded", "reconstructed", "unknown"]).meta({
      description:
        "`recorded`: written with the entry; `reconstructed`: rebuilt from the stakes and giveaways for entries older " +
        "than the history (migration 0011); `unknown`: the amount is known, its explanation is not.",
    }),
    hour: timestamp.optional().meta({ description: "Accrual: the hour credited (its start, UTC)." }),
    staked: z
      .object({ spooks: z.number().int().min(0), spookSociety: z.number().int().min(0) })
      .optional()
      .meta({ description: "Accrual: the items staked for the whole hour, per collection." }),
    tier: z.number().int().min(1).optional().meta({ description: "Accrual: the reward tier of that count." }),
    dailyRatePerItem: z.number().optional().meta({ description: "Accrual: points a day each item earned at that tier." }),
    boost: z
      .object({
        version: z
          .number()
          .int()
          .nullable()
          .meta({ description: "The boost schedule in force then (GET /api/boosts); null: the defaults." }),
        rarityPercentSum: z.number().int().min(0).meta({ description: "The items' rarity percentages, summed." }),
        boostPercentSum: z.number().int().min(0).meta({
          description: "The items' combined percentages (rarity × tenure / 100, at most the cap), summed: delta = rate × this / 100 / 24.",
        }),
      })
      .optional()
      .meta({ description: "Accrual (since boosts): the parts of its amount." }),
    giveawayId: z.number().int().optional().meta({ description: "Giveaway entry or refund: the giveaway." }),
    giveawayTitle: z.string().nullable().optional().meta({ description: "Its title when the entry was made (null: not known)." }),
    tickets: z.number().int().min(1).optional().meta({ description: "Giveaway entry or refund: the tickets." }),
    description: z.string().nullable().optional().meta({ description: "Admin changes: the text the admin gave." }),
    by: z.string().optional().meta({ description: "Admin changes: who made it." }),
  })
  .meta({ id: "PointsHistoryDetails" });

export const historyEntrySchema = z
  .object({
    id: z.number().int().meta({ description: "The ledger row's id (newer rows have larger ids)." }),
    at: timestamp,
    kind: z.enum(LEDGER_KINDS).meta({
      description:
        "The cause: `accrual` (hourly points for staked items), `giveaway_entry`, `giveaway_refund` (a deleted giveaway), " +
        "`admin_add`, `admin_clear`, `negative_reset`, `recalculation`.",
    }),
    delta: z.number().meta({ description: "Points added (positive) or taken (negative); × 2,400 it is a whole number of units." }),
    balanceAfter: z.number().meta({ description: "The wallet's points right after this entry: the sum of every delta up to it." }),
    details: entryDetailsSchema,
    deltaUnits: z
      .number()
      .int()
      .meta({ description: "`delta` exactly, in units (1 point = 2,400 units): the deltaUnits of all entries sum to the balance." }),
    balanceAfterUnits: z.number().int().meta({ description: "`balanceAfter` exactly, in units (1 point = 2,400 units)." }),
    logIndex: logIndexField.meta({
      description: "The index of this row's entry in the public log (/log/); null for rows before the log began.",
    }),
  })
  .meta({ id: "PointsHistoryEntry" });

export const pointsHistorySchema = z
  .object({
    entries: z.array(historyEntrySchema).meta({ description: "Newest first." }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the older entries; null when there are none." }),
  })
  .meta({ id: "PointsHistory" });

const EXAMPLE_HISTORY = {
  entries: [
    {
      id: 4012,
      at: "2026-11-25T15:00:02.000Z",
      kind: "accrual",
      delta: 30,
      balanceAfter: 1264.5,
      details: {
        summary: "Hour 2026-11-25 14:00–15:00 UTC: 4 Spooks and 2 Spook Society staked, tier 2, 120 points a day each",
        source: "recorded",
        hour: "2026-11-25T14:00:00.000Z",
        staked: { spooks: 4, spookSociety: 2 },
        tier: 2,
        dailyRatePerItem: 120,
      },
      deltaUnits: 72_000,
      balanceAfterUnits: 3_034_800,
    },
    {
      id: 3990,
      at: "2026-11-25T14:31:40.000Z",
      kind: "giveaway_entry",
      delta: -200,
      balanceAfter: 1234.5,
      details: {
        summary: '2 tickets in giveaway #7 "Haunted Hoodie"',
        source: "recorded",
        giveawayId: 7,
        giveawayTitle: "Haunted Hoodie",
        tickets: 2,
      },
      deltaUnits: -480_000,
      balanceAfterUnits: 2_962_800,
    },
  ],
  nextCursor: "3990",
};

export const pointsHistory = defineRoute({
  operationId: "getPointsHistory",
  method: "GET",
  path: "/api/points/{address}/history",
  tag: TAG,
  summary: "A wallet's points history, newest first, each entry explained",
  description:
    "Every change of the wallet's balance (the ledger), newest first, with the balance it left: the deltas of all " +
    "entries sum to the balance GET /api/rewards/{address} reports. Pages by keyset: pass `nextCursor` as `cursor`. " +
    "`format=csv` streams the whole history as CSV (`" +
    CSV_HEADER +
    "`), `format=json` as this answer with every entry (`nextCursor` null); both are downloads, streamed. `delta` and " +
    "`balance_after` are points to two decimals (as the page shows them); `delta_units` and `balance_after_units` (JSON: " +
    "`deltaUnits`, `balanceAfterUnits`) are the exact values in units, 1 point = 2,400 units: sum those, never the " +
    "two-decimal ones (a year of hourly rows rounded to 0.01 drifts by tens of points).",
  auth: "none",
  params: addressParams,
  query: pointsHistoryQuery,
  responses: {
    200: {
      description: "A page of the history (possibly empty).",
      schema: pointsHistorySchema,
      example: EXAMPLE_HISTORY,
      alternatives: {
        "text/csv": {
          schema: z
            .string()
            .meta({ description: `With \`format=csv\`: the header \`${CSV_HEADER}\`, then one line per entry, newest first.` }),
          example: `${CSV_HEADER}\r\n2026-11-25T15:00:02.000Z,accrual,30,1264.5,"Hour 2026-11-25 14:00–15:00 UTC: 4 Spooks and 2 Spook Society staked, tier 2, 120 points a day each"\r\n`,
        },
      },
      headers: { "Content-Disposition": "With `format`: `attachment` and the file's name." },
    },
    429: {
      description: "With `format`: your address already has two downloads open; try again after Retry-After seconds.",
      schema: errorBody,
      example: { message: "Too many downloads at once from your address (at most 2); try again in a few seconds" },
      headers: { "Retry-After": "Seconds to wait before trying again." },
    },
    400: errorAnswer(
      "The address, `limit`, `cursor`, `kind` or `format` breaks its rule (the message says which).",
      "cursor must be the nextCursor of an earlier page",
    ),
  },
});

export type PointsHistory = ClientAnswer<typeof pointsHistory>;
export type PointsHistoryEntry = PointsHistory["entries"][number];
