/** Holdings, stats, rewards and the leaderboard: public reads, no auth. */
import { z } from "zod";
import { COLLECTION_KEYS, RARITIES } from "../domain/collections.ts";
import { LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from "../domain/leaderboard.ts";
import { defineRoute, addressParams, addressSchema, errorBody, timestamp, type ClientAnswer, errorAnswer } from "./kit.ts";

const TAG = "Holdings and rewards";
const badAddress = errorAnswer("The address is not a Dogecoin address.", "Invalid Dogecoin address");
const EXAMPLE_ADDRESS = "DHy2eGMWsFUmjur4GVeafrioGdHj7HGDyj";

/** An address the server answers (already checked when it was stored, so not checked again here). */
const walletAddress = z.string().meta({ description: "A Dogecoin address.", examples: [EXAMPLE_ADDRESS] });

export const walletItemSchema = z
  .object({
    id: z.number().int().meta({ description: "The item's catalogue id (the page's own id for it)." }),
    name: z.string().meta({ examples: ["Spooks #5"] }),
    inscriptionId: z.string().meta({ description: "The item's inscription id (lower case)." }),
    collection: z.enum(COLLECTION_KEYS),
    imageUrl: z.string().nullable().meta({ description: "The catalogue's picture URL; null: the page shows /content/{inscriptionId}." }),
    rarity: z.literal([1, 2, 3, 4]).meta({ description: "The rarity as a level: 1 Common, 2 Rare, 3 Epic, 4 Legendary." }),
    rarityLabel: z.enum(RARITIES),
    rank: z.number().int().meta({ description: "The item's rarity rank in its collection (1 = rarest)." }),
    isStaked: z.boolean(),
    stakedAt: timestamp.nullable().meta({ description: "When the wallet's open stake on the item began; null when not staked." }),
    rewardRate: z.number().meta({
      description: "The tier's points per day per item (R, before boosts); what an item earns is `perDay`.",
    }),
    perDay: z.number().nullable().meta({
      description: "A staked item's points per day now: rewardRate × rarity% × tenure% / 10,000 (at most the cap). Null when not staked.",
    }),
    boost: z
      .object({
        rarityPercent: z.number().int(),
        tenurePercent: z.number().int(),
        combinedPercent: z
          .number()
          .int()
          .meta({ description: "rarity% × tenure% / 100, at most the schedule's cap: perDay = rewardRate × this / 100." }),
        tenureDays: z.number().int().nullable().meta({ description: "The tenure step in force (its days); null before the first." }),
        tenureFrom: timestamp.meta({ description: "Where its tenure counts from: the open stake's start (kept across a reorg reopen)." }),
        nextStep: z
          .object({ at: timestamp, percent: z.number().int(), days: z.number().int() })
          .nullable()
          .meta({ description: "The next tenure step: the first whole hour it applies from, and its percent; null when none is left." }),
      })
      .nullable()
      .meta({ description: "The boosts of a staked item under the schedule in force (GET /api/boosts); null when not staked." }),
  })
  .meta({ id: "WalletItem" });

export const walletDoginals = defineRoute({
  operationId: "getWalletItems",
  method: "GET",
  path: "/api/wallet-doginals/{address}",
  tag: TAG,
  summary: "The catalogue items a wallet owns, with their staking state",
  description:
    "Ownership is as the indexer last synced it from the chain; items the wallet does not own are never listed, " +
    "whoever staked them. Ordered by collection, then item number. An empty list for a wallet without items. " +
    "The `_t` query parameter the page adds against caches is ignored.",
  auth: "none",
  params: addressParams,
  responses: {
    200: {
      description: "The wallet's items (possibly none).",
      schema: z.array(walletItemSchema),
      example: [
        {
          id: 5,
          name: "Spooks #5",
          inscriptionId: `${"a1".repeat(32)}i0`,
          collection: "spooks",
          imageUrl: null,
          rarity: 3,
          rarityLabel: "Epic",
          rank: 120,
          isStaked: true,
          stakedAt: "2026-10-01T12:00:00.000Z",
          rewardRate: 100,
          perDay: 143,
          boost: {
            rarityPercent: 130,
            tenurePercent: 110,
            combinedPercent: 143,
            tenureDays: 7,
            tenureFrom: "2026-10-01T12:00:00.000Z",
            nextStep: { at: "2026-10-31T12:00:00.000Z", percent: 120, days: 30 },
          },
        },
      ],
    },
    400: badAddress,
  },
});

export const verifyHoldingsBody = z.object({
  address: addressSchema,
  inscriptionIds: z
    .array(z.string().max(200), { error: "inscriptionIds must be a list" })
    .max(10_000)
    .optional()
    .meta({ description: "Count only these items (case-insensitive); without it, every item the wallet owns." }),
});

/** A realistic rewards answer (the examples of every route that answers rewards). */
export const EXAMPLE_REWARDS = {
  unclaimedRewards: 1234.5,
  dailyRate: 430,
  rewardTier: 1,
  stakedCount: 4,
  totalCount: 5,
  stakingPercentage: 80,
  stakingSince: "2026-10-01T12:00:00.000Z",
  rank: 3,
  currentHour: {
    start: "2026-10-31T21:00:00.000Z",
    creditedAt: "2026-10-31T22:00:00.000Z",
    stakedCount: 4,
    tier: 1,
    percentSum: 400,
    points: 16.666666666666668,
  },
};

export const rewardsSchema = z
  .object({
    unclaimedRewards: z.number().meta({ description: "The wallet's Spook Points (2 decimals)." }),
    dailyRate: z.number().meta({
      description:
        "Points the staked items earn per day: each item's boosted rate (its `perDay` in GET /api/wallet-doginals/{address}, " +
        "the tier's rate × rarity% × tenure% / 10,000, at most the cap) added up; N × R while no boost applies. 24 whole hours " +
        "credit exactly this.",
    }),
    rewardTier: z.number().int().min(1).max(5),
    stakedCount: z.number().int().min(0),
    totalCount: z.number().int().min(0),
    stakingPercentage: z.number().min(0).max(100),
    stakingSince: timestamp.nullable().meta({ description: "When the oldest open stake began; null with none." }),
    rank: z.number().int().min(0).meta({ description: "Place on the leaderboard; 0 when not ranked." }),
    currentHour: z
      .object({
        start: timestamp.meta({ description: "The start of the UTC hour under way." }),
        creditedAt: timestamp.meta({ description: "When the hour ends and is credited (the next whole hour)." }),
        stakedCount: z.number().int().min(0).meta({
          description:
            "Stakes open for the whole hour so far: started at or before `start`, not ended. Items staked later earn from the next hour.",
        }),
        tier: z.number().int().min(1).max(5).meta({ description: "The tier of `stakedCount`." }),
        percentSum: z.number().int().min(0).meta({
          description:
            "The counted items' boost percentages added up (rarity × tenure, capped; GET /api/boosts): 100 an item without boosts.",
        }),
        points: z.number().min(0).meta({ description: "What the hour credits at `creditedAt` if nothing is unstaked (not rounded)." }),
      })
      .meta({ id: "PendingHour", description: "The hour under way and what its end credits (hourly accrual)." }),
  })
  .meta({ id: "Rewards" });

export const rewards = defineRoute({
  operationId: "getRewards",
  method: "GET",
  path: "/api/rewards/{address}",
  tag: TAG,
  summary: "A wallet's points, rate, tier, counts and rank",
  auth: "none",
  params: addressParams,
  responses: {
    200: {
      description: "The wallet's rewards figures.",
      schema: rewardsSchema,
      example: EXAMPLE_REWARDS,
    },
    400: badAddress,
  },
});

export const holdingCountsSchema = z
  .object({
    totalCount: z.number().int().min(0),
    spooksCount: z.number().int().min(0),
    societyCount: z.number().int().min(0),
    stakedCount: z.number().int().min(0),
  })
  .meta({ id: "HoldingCounts" });

export const stats = defineRoute({
  operationId: "getStats",
  method: "GET",
  path: "/api/stats/{address}",
  tag: TAG,
  summary: "How many items a wallet holds per collection, and how many are staked",
  auth: "none",
  params: addressParams,
  responses: {
    200: {
      description: "The wallet's counts.",
      schema: holdingCountsSchema,
      example: { totalCount: 5, spooksCount: 3, societyCount: 2, stakedCount: 4 },
    },
    400: badAddress,
  },
});

export const verifyHoldings = defineRoute({
  operationId: "verifyHoldings",
  method: "POST",
  path: "/api/verify-holdings",
  tag: TAG,
  summary: "How many of the listed items a wallet really owns, per collection",
  description:
    "Checks a list of inscription ids against the indexer's ownership: only the listed items the address owns " +
    "count (ids it does not own, or unknown ones, are left out, not refused). Changes nothing; no signature needed. " +
    "Without `inscriptionIds`, the counts of everything the wallet owns (as GET /api/stats/{address}).",
  auth: "none",
  body: {
    kind: "json",
    schema: verifyHoldingsBody,
    example: { address: EXAMPLE_ADDRESS, inscriptionIds: [`${"a1".repeat(32)}i0`, `${"b2".repeat(32)}i0`] },
  },
  responses: {
    200: {
      description: "The counts of the listed items the wallet owns.",
      schema: holdingCountsSchema,
      example: { totalCount: 2, spooksCount: 1, societyCount: 1, stakedCount: 1 },
    },
  },
});

export const catalogue = defineRoute({
  operationId: "getCatalogue",
  method: "GET",
  path: "/api/catalogue",
  tag: TAG,
  summary: "Every catalogue item's inscription id",
  description:
    "The inscription ids of every item of both collections, sorted: what counts as an item here. The vote verifier checks " +
    "that each item a vote's power counts (GET /api/proposals/{id}/votes, `stakedAtStart`) is one of them.",
  auth: "none",
  responses: {
    200: {
      description: "The catalogue's inscription ids (empty before a catalogue is imported).",
      schema: z.object({ inscriptionIds: z.array(z.string()) }).meta({ id: "Catalogue" }),
      example: { inscriptionIds: [`${"a1".repeat(32)}i0`, `${"b2".repeat(32)}i0`] },
    },
  },
});

export const leaderboardQuery = z.object({
  limit: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce
      .number({ error: "limit must be a number" })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(LEADERBOARD_MAX_LIMIT, `limit must be at most ${LEADERBOARD_MAX_LIMIT}`)
      .default(LEADERBOARD_DEFAULT_LIMIT)
      .meta({ description: "How many wallets to list." }),
  ),
});

export const leaderboardEntrySchema = z
  .object({
    address: walletAddress,
    rewards: z.number().meta({ description: "The wallet's Spook Points (2 decimals)." }),
    dailyRate: z.number().meta({
      description: "Points the wallet's staked items earn per day now, boosts included (as GET /api/rewards/{address} answers it).",
    }),
  })
  .meta({ id: "LeaderboardEntry" });

export const leaderboard = defineRoute({
  operationId: "getLeaderboard",
  method: "GET",
  path: "/api/leaderboard",
  tag: TAG,
  summary: "Wallets by Spook Points, most first",
  description:
    "Only wallets with points above 0, most first; ties by address (the order ranks are counted in). " +
    `The top ${LEADERBOARD_DEFAULT_LIMIT} unless \`limit\` asks for 1 to ${LEADERBOARD_MAX_LIMIT}. The ranks of ` +
    "GET /api/rewards/{address} count within that longest list only.",
  auth: "none",
  query: leaderboardQuery,
  responses: {
    200: {
      description: "The leaderboard (possibly empty).",
      schema: z.array(leaderboardEntrySchema),
      example: [
        { address: EXAMPLE_ADDRESS, rewards: 15230.5, dailyRate: 1725 },
        { address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", rewards: 980, dailyRate: 0 },
      ],
    },
    400: {
      description: "`limit` is not a whole number from 1 to the maximum.",
      schema: errorBody,
      example: { message: `limit must be at most ${LEADERBOARD_MAX_LIMIT}` },
    },
  },
});

export type WalletItem = ClientAnswer<typeof walletDoginals>[number];
export type Rewards = ClientAnswer<typeof rewards>;
export type WalletStats = ClientAnswer<typeof stats>;
export type LeaderboardEntry = ClientAnswer<typeof leaderboard>[number];
export type CatalogueIds = ClientAnswer<typeof catalogue>;
