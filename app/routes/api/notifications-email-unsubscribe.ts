/**
 * The List-Unsubscribe URL of every email (RFC 8058): POST `List-Unsubscribe=One-Click` (form-urlencoded or
 * multipart, no cookie: the token alone names the subscription, so no cross-site check applies) stops all mail
 * at once, answered 200, never a redirect. GET: a page with one button doing that POST; opening it changes nothing.
 */
import { unsubscribeEmail, unsubscribePage } from "../../api/email.ts";
import { ONE_CLICK_FIELD, ONE_CLICK_VALUE } from "../../domain/email-notifications.ts";
import { badRequest, notFound } from "../../domain/errors.ts";
import { apiMethods, apiRoute, endpoint, readBodyBytes } from "../../utils/api.server.ts";
import { htmlPage, prefersHtml } from "../../utils/email-pages.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/notifications-email-unsubscribe";

/** A one-click body is a few dozen bytes; a mail client's multipart one a few hundred. */
const FORM_LIMIT = 16 * 1024;

const MISSING = "Send List-Unsubscribe=One-Click as a form (application/x-www-form-urlencoded or multipart/form-data)";

/** Whether the body is a form holding List-Unsubscribe=One-Click. */
async function isOneClick(request: Request): Promise<boolean> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const bytes = await readBodyBytes(request, FORM_LIMIT);
  if (type === "application/x-www-form-urlencoded") {
    return new URLSearchParams(new TextDecoder().decode(bytes)).get(ONE_CLICK_FIELD) === ONE_CLICK_VALUE;
  }
  if (type === "multipart/form-data") {
    try {
      const form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
      return form.get(ONE_CLICK_FIELD) === ONE_CLICK_VALUE;
    } catch {
      return false;
    }
  }
  return false;
}

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(unsubscribePage, async ({ params, context }) => {
    const subscription = await subscriptions.findSubscriptionByUnsubscribeToken(context.sql, params.token);
    if (!subscription) throw notFound("Unsubscribe link not found");
    if (subscription.unsubscribedAt) {
      return htmlPage({ title: "Unsubscribed", text: `No more notifications go to ${subscription.email}.` });
    }
    return htmlPage({
      title: "Unsubscribe from Spooks notifications",
      text: `Stop every notification email to ${subscription.email}?`,
      button: "Unsubscribe",
      field: { name: ONE_CLICK_FIELD, value: ONE_CLICK_VALUE },
    });
  }),
);

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(unsubscribeEmail, async ({ params, context, request }) => {
    if (!(await isOneClick(request))) throw badRequest(MISSING);
    if (!(await subscriptions.unsubscribeEmail(context.sql, params.token))) throw notFound("Unsubscribe link not found");
    if (prefersHtml(request)) return htmlPage({ title: "Unsubscribed", text: "No more notification emails go to this address." });
    return { unsubscribed: true };
  }),
});
