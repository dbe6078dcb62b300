/** DELETE /api/admin/webhooks/{id} (admin): nothing more goes to it. */
import { deleteWebhook } from "../../api/webhooks.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, DELETE_WEBHOOK } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-webhook";

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(deleteWebhook, ({ params, actor, context }) => answerOrPending(context, actor, DELETE_WEBHOOK, params)),
});

export const loader = onlyMethods("DELETE");
