/** POST /api/add-permanent-points (admin) `{ address, amount, description }`. */
import { addPermanentPoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { addPoints } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/add-permanent-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(addPermanentPoints, async ({ body, actor, context }) => {
    const { address, amount, description } = body;
    return { success: true, ...(await addPoints(context.sql, { address, points: amount, description, actor })) };
  }),
});

export const loader = onlyMethods("POST");
