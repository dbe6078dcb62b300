/** POST /api/admin/webhooks/{id}/rotate-secret (admin): a new secret; the old one also signs for 24 h. */
import { rotateWebhookSecret } from "../../api/webhooks.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhook-rotate";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(rotateWebhookSecret, ({ params, actor, context }) => webhooks.rotateWebhookSecret(context.sql, { id: params.id, actor })),
});

export const loader = onlyMethods("POST");
