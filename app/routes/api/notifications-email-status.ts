/** GET /api/notifications/email/{address}: whether the wallet's notifications go to an email address (masked). */
import { mailEnabled } from "../../utils/mail.server.ts";
import { getEmailSubscription } from "../../api/email.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/notifications-email-status";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getEmailSubscription, async ({ params, context }) => ({
    available: mailEnabled(context.config.mail),
    ...(await subscriptions.subscriptionStatus(context.sql, params.address)),
  })),
);

export const action = onlyMethods("GET");
