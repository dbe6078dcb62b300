/** POST /api/add-permanent-points (admin) `{ address, amount, description }`. */
import { addPointsSchema } from "../../domain/validation.ts";
import { apiMethods, onlyMethods, readJson } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { addPoints } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/add-permanent-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    const { address, amount, description } = await readJson(request, addPointsSchema);
    const result = await addPoints(context.sql, { address, points: amount, description, actor });
    return { success: true, ...result };
  },
});

export const loader = onlyMethods("POST");
