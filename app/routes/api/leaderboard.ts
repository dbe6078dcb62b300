/** GET /api/leaderboard[?limit=]: wallets by points, highest first. */
import { z } from "zod";
import { apiRoute, onlyMethods, parseWith } from "../../utils/api.server.ts";
import { leaderboard, LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/leaderboard";

const limitSchema = z.coerce
  .number({ error: "limit must be a number" })
  .int("limit must be a whole number")
  .min(1, "limit must be at least 1")
  .max(LEADERBOARD_MAX_LIMIT, `limit must be at most ${LEADERBOARD_MAX_LIMIT}`);

export const loader = apiRoute<Route.LoaderArgs>(({ request, context }) => {
  const raw = new URL(request.url).searchParams.get("limit");
  const limit = raw === null || raw === "" ? LEADERBOARD_DEFAULT_LIMIT : parseWith(limitSchema, raw);
  return leaderboard(context.sql, limit);
});

export const action = onlyMethods("GET");
