/** POST /api/admin/clear-points (admin) `{ address, reason? }`: a ledger row bringing the balance to 0. */
import { clearPoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, CLEAR_POINTS } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-clear-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(clearPoints, ({ body, actor, context }) => answerOrPending(context, actor, CLEAR_POINTS, body)),
});

export const loader = onlyMethods("POST");
