/** POST /api/admin/recalculate-points (admin): rebuilds every cached balance from the ledger. */
import { apiMethods, onlyMethods } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { recalculateAllPoints } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-recalculate-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    const { addressesProcessed } = await recalculateAllPoints(context.sql, actor);
    return { success: true, addressesProcessed };
  },
});

export const loader = onlyMethods("POST");
