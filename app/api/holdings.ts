/** Holdings, stats, rewards and the leaderboard: public reads, no auth. */
import { z } from "zod";
import { defineRoute, addressParams, errorBody, timestamp, type ClientAnswer } from "./kit.ts";

const TAG = "Holdings and rewards";
const badAddress = { description: "The address is not a Dogecoin address.", schema: errorBody, example: { message: "Invalid Dogecoin address" } };

export const rewardsSchema = z
  .object({
    unclaimedRewards: z.number().meta({ description: "The wallet's Spook Points (2 decimals)." }),
    dailyRate: z.number().meta({ description: "Points the staked items earn per day at the current tier." }),
    rewardTier: z.number().int().min(1).max(5),
    stakedCount: z.number().int().min(0),
    totalCount: z.number().int().min(0),
    stakingPercentage: z.number().min(0).max(100),
    stakingSince: timestamp.nullable().meta({ description: "When the oldest open stake began; null with none." }),
    rank: z.number().int().min(0).meta({ description: "Place on the leaderboard; 0 when not ranked." }),
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
      example: {
        unclaimedRewards: 1234.5,
        dailyRate: 48,
        rewardTier: 2,
        stakedCount: 4,
        totalCount: 5,
        stakingPercentage: 80,
        stakingSince: "2026-10-01T12:00:00.000Z",
        rank: 3,
      },
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

export type Rewards = ClientAnswer<typeof rewards>;
export type WalletStats = ClientAnswer<typeof stats>;
