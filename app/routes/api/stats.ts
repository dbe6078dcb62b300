/** GET /api/stats/{address}: { stakedCount, totalCount, spooksCount, societyCount }. */
import { stats } from "../../api/holdings.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { holdingCounts } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/stats";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(stats, ({ params, context }) => holdingCounts(context.sql, params.address)));

export const action = onlyMethods("GET");
