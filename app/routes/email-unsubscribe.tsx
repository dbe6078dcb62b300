/**
 * /email/unsubscribe/{token}: the unsubscribe link of a notification email's text, as a page of the site (issue 33,
 * item 9), with one button. The List-Unsubscribe header keeps the API's one-click URL (RFC 8058), for mail clients.
 */
import { data } from "react-router";
import { SubscriptionPage, type SubscriptionView } from "../components/notifications/subscription-page.tsx";
import { pageData } from "../utils/pages.server.ts";
import { findSubscriptionByUnsubscribeToken, unsubscribeEmail } from "../../db/queries/email-subscriptions.server.ts";
import type { Route } from "./+types/email-unsubscribe";

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });
export const meta: Route.MetaFunction = () => [{ title: "Unsubscribe | Spooks" }, { name: "robots", content: "noindex" }];

type LoaderData = { subscription: SubscriptionView | null; unsubscribed: boolean };

async function read(context: Route.LoaderArgs["context"], token: string): Promise<LoaderData | null> {
  const found = await pageData(() => findSubscriptionByUnsubscribeToken(context.sql, token));
  if (!found) return null;
  return {
    subscription: { address: found.address, email: found.email, events: found.events },
    unsubscribed: found.unsubscribedAt !== null,
  };
}

export async function loader({ params, context }: Route.LoaderArgs) {
  const found = await read(context, params.token);
  return found ? data(found) : data<LoaderData>({ subscription: null, unsubscribed: false }, { status: 404 });
}

export async function action({ params, context }: Route.ActionArgs) {
  if (!(await pageData(() => unsubscribeEmail(context.sql, params.token)))) {
    return data<LoaderData>({ subscription: null, unsubscribed: false }, { status: 404 });
  }
  return data((await read(context, params.token))!);
}

export default function EmailUnsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription, unsubscribed } = actionData ?? loaderData;
  if (!subscription) {
    return (
      <SubscriptionPage
        title="Unsubscribe link not found"
        text="This link is not (or no longer) an unsubscribe link."
        subscription={null}
      />
    );
  }
  return unsubscribed ? (
    <SubscriptionPage
      title="Unsubscribed"
      text={`No more notification emails go to ${subscription.email}. The site's bell still shows them.`}
      subscription={subscription}
      listTitle="You no longer receive an email when:"
    />
  ) : (
    <SubscriptionPage
      title="Unsubscribe from Spooks notifications"
      text={`Stop every notification email for ${subscription.address} to ${subscription.email}?`}
      subscription={subscription}
      listTitle="You receive an email when:"
      button="Unsubscribe"
    />
  );
}
