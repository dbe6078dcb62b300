/**
 * /email/confirm/{token}: the confirmation link of a subscription email, as a page of the site (issue 33, item 9).
 * Opening it confirms nothing (a mail scanner that fetches links cannot subscribe a mailbox); its Confirm button
 * posts here. GET/POST /api/notifications/email/confirm/{token} stay for API clients and older emails.
 */
import { data } from "react-router";
import { SubscriptionPage, type SubscriptionView } from "../components/notifications/subscription-page.tsx";
import { pageData } from "../utils/pages.server.ts";
import { confirmEmail, findSubscriptionByConfirmToken } from "../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/email-confirm";

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });
export const meta: Route.MetaFunction = () => [{ title: "Confirm your notifications | Spooks" }, { name: "robots", content: "noindex" }];

type LoaderData = { subscription: SubscriptionView | null; confirmed: boolean };

const view = (s: SubscriptionView): SubscriptionView => ({ address: s.address, email: s.email, events: s.events });

export async function loader({ params, context }: Route.LoaderArgs) {
  const found = await pageData(() => findSubscriptionByConfirmToken(context.sql, params.token));
  if (!found) return data<LoaderData>({ subscription: null, confirmed: false }, { status: 404 });
  return data<LoaderData>({ subscription: view(found), confirmed: found.confirmedAt !== null });
}

export async function action({ params, context }: Route.ActionArgs) {
  const confirmed = await pageData(() => confirmEmail(context.sql, params.token));
  if (!confirmed) return data<LoaderData>({ subscription: null, confirmed: false }, { status: 404 });
  return data<LoaderData>({ subscription: view(confirmed), confirmed: true });
}

export default function EmailConfirm({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription, confirmed } = actionData ?? loaderData;
  if (!subscription) {
    return (
      <SubscriptionPage
        title="Confirmation link not found"
        text="This link is not (or no longer) a confirmation link. Ask for a new one from the notification settings."
        subscription={null}
      />
    );
  }
  return confirmed ? (
    <SubscriptionPage
      title="Confirmed"
      text={`Notifications for ${subscription.address} go to ${subscription.email}. Every email has a link to stop them at once.`}
      subscription={subscription}
      listTitle="You will receive an email when:"
    />
  ) : (
    <SubscriptionPage
      title="Confirm your Spooks notifications"
      text={`Send notifications for ${subscription.address} to ${subscription.email}?`}
      subscription={subscription}
      listTitle="You will receive an email when:"
      button="Confirm"
    />
  );
}
