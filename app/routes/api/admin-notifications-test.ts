/** POST /api/admin/notifications/test (admin) `{ channel }`: a test message on the channel, now. Audited. */
import { sendTest } from "../../api/notifications.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { recordAudit } from "../../../db/queries/audit.server.ts";
import { notificationChannels } from "../../../indexer/notifications/channels.server.ts";
import { sendTestNotification } from "../../../indexer/notifications/test-send.server.ts";
import type { Route } from "./+types/admin-notifications-test";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(sendTest, async ({ body, actor, context }) => {
    const results = await sendTestNotification(context.sql, notificationChannels(context.config, { sql: context.sql }), body.channel);
    await recordAudit(context.sql, actor, "notifications.test", body.channel, { results });
    return { channel: body.channel, results };
  }),
});

export const loader = onlyMethods("POST");
