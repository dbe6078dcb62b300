/** DELETE /api/admin/boosts/{version} (admin): cancels an upcoming boost schedule. */
import { cancelBoosts } from "../../api/boosts.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, CANCEL_BOOSTS } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-boost";

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(cancelBoosts, ({ params, actor, context }) => answerOrPending(context, actor, CANCEL_BOOSTS, params)),
});

export const loader = onlyMethods("DELETE");
