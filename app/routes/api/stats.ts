/** GET /api/stats/{address}: { stakedCount, totalCount, spooksCount, societyCount }. */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { holdingCounts } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/stats";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  holdingCounts(context.sql, addressParam(params.address)),
);

export const action = onlyMethods("GET");
