/** DELETE /api/admin/webhooks/{id} (admin): nothing more goes to it. */
import { deleteWebhook } from "../../api/webhooks.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as webhooks from "../../../db/queries/webhooks.server.ts";
import type { Route } from "./+types/admin-webhook";

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(deleteWebhook, async ({ params, actor, context }) => {
    await webhooks.deleteWebhook(context.sql, { id: params.id, actor });
    return { success: true };
  }),
});

export const loader = onlyMethods("DELETE");
