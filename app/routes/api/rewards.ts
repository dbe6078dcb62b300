/** GET /api/rewards/{address}: points, rate, tier, counts and leaderboard rank (0 when not ranked). */
import { rewards } from "../../api/holdings.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { rewardsOf } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/rewards";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(rewards, ({ params, context }) => rewardsOf(context.sql, params.address)));

export const action = onlyMethods("GET");
