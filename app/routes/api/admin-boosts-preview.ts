/** POST /api/admin/boosts/preview (admin): a schedule's effect on today's stakes, before it is saved. */
import { previewBoosts } from "../../api/boosts.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { previewSchedule } from "../../../db/queries/boosts.server.ts";
import type { Route } from "./+types/admin-boosts-preview";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(previewBoosts, ({ body, context }) => previewSchedule(context.sql, body, body.effectiveFrom)),
});

export const loader = onlyMethods("POST");
