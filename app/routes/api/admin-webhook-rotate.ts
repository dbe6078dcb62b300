/** POST /api/admin/webhooks/{id}/rotate-secret (admin): a new secret; the old one also signs for 24 h. */
import { rotateWebhookSecret } from "../../api/webhooks.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { answerOrPending, ROTATE_WEBHOOK_SECRET } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/admin-webhook-rotate";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(rotateWebhookSecret, ({ params, actor, context }) => answerOrPending(context, actor, ROTATE_WEBHOOK_SECRET, params)),
});

export const loader = onlyMethods("POST");
