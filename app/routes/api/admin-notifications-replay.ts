/** POST /api/admin/notifications/deliveries/{id}/replay (admin): the delivery back to pending, due now. Audited. */
import { replayDelivery } from "../../api/notifications.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { recordAudit } from "../../../db/queries/audit.server.ts";
import * as notifications from "../../../db/queries/notifications.server.ts";
import { inTransaction } from "../../../db/queries/transaction.server.ts";
import type { Route } from "./+types/admin-notifications-replay";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(replayDelivery, ({ params, actor, context }) =>
    inTransaction(context.sql, async (tx) => {
      const before = (await notifications.listDeliveries(tx, { cursor: params.id + 1, limit: 1 })).entries[0];
      const delivery = await notifications.replayDelivery(tx, params.id);
      await recordAudit(
        tx,
        actor,
        "notifications.replay",
        `delivery:${params.id}`,
        { channel: delivery.channel, event: delivery.event },
        {
          before: { state: before?.state },
          after: { state: delivery.state },
        },
      );
      return delivery;
    }),
  ),
});

export const loader = onlyMethods("POST");
