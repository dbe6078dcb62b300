/** GET /api/admin/webhooks (admin): the endpoints, no secrets; POST (admin) `{ url, events }`: add one (201, its secret shown once). */
import { createWebhook, listWebhooks } from "../../api/webhooks.ts";
import { answerOrPending, CREATE_WEBHOOK } from "../../utils/approvals.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhooks";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(listWebhooks, ({ context }) => webhooks.listWebhooks(context.sql)));

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(createWebhook, ({ body, actor, context }) => answerOrPending(context, actor, CREATE_WEBHOOK, body)),
});
