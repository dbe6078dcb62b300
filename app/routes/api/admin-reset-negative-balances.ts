/** POST /api/admin/reset-negative-balances (admin): a ledger adjustment to 0 for each negative balance. */
import { resetNegativeBalances } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, RESET_NEGATIVE_BALANCES } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-reset-negative-balances";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(resetNegativeBalances, ({ actor, context }) => answerOrPending(context, actor, RESET_NEGATIVE_BALANCES, {})),
});

export const loader = onlyMethods("POST");
