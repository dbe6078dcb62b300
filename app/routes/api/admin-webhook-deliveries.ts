/** GET /api/admin/webhooks/{id}/deliveries (admin): its deliveries, newest first, by webhook-id. */
import { listWebhookDeliveries } from "../../api/webhooks.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhook-deliveries";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listWebhookDeliveries, ({ params, query, context }) =>
    webhooks.listWebhookDeliveries(context.sql, { id: params.id, limit: query.limit }),
  ),
);

export const action = onlyMethods("GET");
