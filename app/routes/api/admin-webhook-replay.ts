/** POST /api/admin/webhooks/{id}/deliveries/{deliveryId}/replay (admin): the same message, due again now. */
import { replayWebhookDelivery } from "../../api/webhooks.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhook-replay";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(replayWebhookDelivery, ({ params, actor, context }) =>
    webhooks.replayWebhookDelivery(context.sql, { id: params.id, messageId: params.deliveryId, actor }),
  ),
});

export const loader = onlyMethods("POST");
