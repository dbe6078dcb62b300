/** POST /api/admin/recalculate-points (admin): rebuilds every cached balance from the ledger. */
import { recalculatePoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, RECALCULATE_POINTS } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-recalculate-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(recalculatePoints, ({ actor, context }) => answerOrPending(context, actor, RECALCULATE_POINTS, {})),
});

export const loader = onlyMethods("POST");
