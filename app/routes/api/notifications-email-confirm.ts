/**
 * GET /api/notifications/email/confirm/{token}: a page with one Confirm button; POST (the button) confirms.
 * Opening the link confirms nothing, so a mail scanner that fetches links cannot subscribe a mailbox.
 */
import { confirmEmail, confirmEmailPage } from "../../api/email.ts";
import { notFound } from "../../domain/errors.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import { htmlPage, prefersHtml } from "../../utils/email-pages.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/notifications-email-confirm";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(confirmEmailPage, async ({ params, context }) => {
    const subscription = await subscriptions.findSubscriptionByConfirmToken(context.sql, params.token);
    if (!subscription) throw notFound("Confirmation link not found");
    const done = subscription.confirmedAt !== null;
    return htmlPage({
      title: "Confirm your Spooks notifications",
      text: done
        ? `Already confirmed: notifications for ${subscription.address} go to ${subscription.email}.`
        : `Send notifications for ${subscription.address} to ${subscription.email}?`,
      button: done ? undefined : "Confirm",
    });
  }),
);

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(confirmEmail, async ({ params, context, request }) => {
    const subscription = await subscriptions.confirmEmail(context.sql, params.token);
    if (!subscription) throw notFound("Confirmation link not found");
    if (prefersHtml(request)) {
      return htmlPage({
        title: "Confirmed",
        text: `Notifications for ${subscription.address} now go to ${subscription.email}. Every email has a link to stop them at once.`,
      });
    }
    return { confirmed: true, address: subscription.address };
  }),
});
