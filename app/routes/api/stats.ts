/** GET /api/stats/{address}: { stakedCount, totalCount, spooksCount, societyCount }. */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { holdingCounts } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/stats";

export const loader = apiRoute<Route.LoaderArgs>(async ({ params, context }) => {
  const { stakedCount, totalCount, spooksCount, societyCount } = await holdingCounts(context.sql, addressParam(params.address));
  return { stakedCount, totalCount, spooksCount, societyCount };
});

export const action = onlyMethods("GET");
