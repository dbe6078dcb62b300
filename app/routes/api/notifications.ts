/** GET /api/notifications/{address}[?limit=&cursor=]: the public events and the address's own, newest first. */
import { listNotifications } from "../../api/notifications.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { notificationsFor } from "../../../db/queries/notifications.server.ts";
import type { Route } from "./+types/notifications";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listNotifications, ({ params, query, context }) =>
    notificationsFor(context.sql, params.address, { limit: query.limit, cursor: query.cursor ?? null }),
  ),
);

export const action = onlyMethods("GET");
