/** GET /api/admin/notifications/deliveries (admin): every delivery of every channel, newest first. */
import { listDeliveries } from "../../api/notifications.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as notifications from "../../../db/queries/notifications.server.ts";
import type { Route } from "./+types/admin-notifications-deliveries";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listDeliveries, ({ query, context }) => notifications.listDeliveries(context.sql, query)),
);

export const action = onlyMethods("GET");
