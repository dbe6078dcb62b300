/** GET /api/admin/webhooks (admin): the endpoints, no secrets; POST (admin) `{ url, events }`: add one (201, its secret shown once). */
import { createWebhook, listWebhooks } from "../../api/webhooks.ts";
import { badRequest } from "../../domain/errors.ts";
import { checkDestination, DestinationError } from "../../utils/public-destination.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhooks";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(listWebhooks, ({ context }) => webhooks.listWebhooks(context.sql)));

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(createWebhook, async ({ body, actor, context }) => {
    try {
      await checkDestination(body.url, { allowPrivate: context.config.webhooks.allowPrivate });
    } catch (error) {
      if (error instanceof DestinationError) throw badRequest(error.message);
      throw error;
    }
    const created = await webhooks.createWebhook(context.sql, { url: body.url, events: body.events, actor });
    return { ...created, active: true as const };
  }),
});
