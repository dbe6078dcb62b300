/** GET /api/rewards/{address}: points, rate, tier, counts and leaderboard rank (0 when not ranked). */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { rewardsOf } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/rewards";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  rewardsOf(context.sql, addressParam(params.address)),
);

export const action = onlyMethods("GET");
