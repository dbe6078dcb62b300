/** POST /api/admin/reset-negative-balances (admin): a ledger adjustment to 0 for each negative balance. */
import { resetNegativeBalances } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as points from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-reset-negative-balances";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(resetNegativeBalances, async ({ actor, context }) => ({
    success: true,
    ...(await points.resetNegativeBalances(context.sql, actor)),
  })),
});

export const loader = onlyMethods("POST");
