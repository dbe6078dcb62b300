/** POST /api/admin/recalculate-points (admin): rebuilds every cached balance from the ledger. */
import { recalculatePoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { recalculateAllPoints } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-recalculate-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(recalculatePoints, async ({ actor, context }) => {
    const { addressesProcessed } = await recalculateAllPoints(context.sql, actor);
    return { success: true, addressesProcessed };
  }),
});

export const loader = onlyMethods("POST");
