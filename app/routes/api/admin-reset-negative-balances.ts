/** POST /api/admin/reset-negative-balances (admin): a ledger adjustment to 0 for each negative balance. */
import { apiMethods, onlyMethods } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { resetNegativeBalances } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-reset-negative-balances";

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    return { success: true, ...(await resetNegativeBalances(context.sql, actor)) };
  },
});

export const loader = onlyMethods("POST");
