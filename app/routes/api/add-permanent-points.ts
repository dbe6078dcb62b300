/** POST /api/add-permanent-points (admin) `{ address, amount, description }`. */
import { addPermanentPoints } from "../../api/admin.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { ADD_POINTS, answerOrPending } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/add-permanent-points";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(addPermanentPoints, ({ body, actor, context }) =>
    answerOrPending(context, actor, ADD_POINTS, { address: body.address, amount: body.amount, description: body.description }),
  ),
});

export const loader = onlyMethods("POST");
