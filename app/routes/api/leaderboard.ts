/** GET /api/leaderboard[?limit=]: wallets by points, highest first. */
import { leaderboard as leaderboardRoute } from "../../api/holdings.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { leaderboard } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/leaderboard";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(leaderboardRoute, ({ query, context }) => leaderboard(context.sql, query.limit)));

export const action = onlyMethods("GET");
