/** POST /api/admin/clear-points (admin) `{ address }`: a ledger row bringing the balance to 0. */
import { apiMethods, onlyMethods, readJson } from "../../utils/api.server.ts";
import { clearPointsBodySchema } from "../../utils/api-schemas.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { clearPoints } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-clear-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    const { address } = await readJson(request, clearPointsBodySchema);
    return { success: true, ...(await clearPoints(context.sql, { address, actor })) };
  },
});

export const loader = onlyMethods("POST");
