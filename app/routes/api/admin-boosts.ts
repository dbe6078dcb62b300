/** PUT /api/admin/boosts (admin): a new boost schedule from a whole hour. */
import { setBoosts } from "../../api/boosts.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, SET_BOOSTS } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-boosts";

export const action = apiMethods<Route.ActionArgs>({
  PUT: endpoint(setBoosts, ({ body, actor, context }) => answerOrPending(context, actor, SET_BOOSTS, body)),
});

export const loader = onlyMethods("PUT");
