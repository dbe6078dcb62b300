/** POST /api/admin/clear-points (admin) `{ address }`: a ledger row bringing the balance to 0. */
import { clearPoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as points from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-clear-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(clearPoints, async ({ body, actor, context }) => ({
    success: true,
    ...(await points.clearPoints(context.sql, { address: body.address, actor })),
  })),
});

export const loader = onlyMethods("POST");
