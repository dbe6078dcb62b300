/**
 * The pages an email's links open (issue 33, item 9): inside the site's layout, saying which wallet and which
 * mailbox, what the subscriber receives (or no longer receives), one button, and the way back. Used by
 * /email/confirm/{token} and /email/unsubscribe/{token}; the API's one-click URL stays for mail clients.
 */
import { Form, Link } from "react-router";
import { EVENT_LABELS, type HolderEventName, type NotificationEventName } from "../../domain/notifications.ts";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";

export type SubscriptionView = { address: string; email: string; events: NotificationEventName[] };

export function SubscriptionPage({
  title,
  text,
  subscription,
  listTitle,
  button,
  field,
}: {
  title: string;
  text: string;
  subscription: SubscriptionView | null;
  /** Above the subscription's events: "You will receive" or "You no longer receive". */
  listTitle?: string;
  /** The one form's button, posting back to this page. */
  button?: string;
  field?: { name: string; value: string };
}) {
  return (
    <section className="mx-auto grid w-full max-w-xl gap-4 py-6" data-testid="subscription-page">
      <h1 className="text-3xl font-bold tracking-tight text-white">{title}</h1>
      <Card className="grid gap-4 p-5">
        <p className="text-zinc-200" data-testid="subscription-text">
          {text}
        </p>
        {subscription && listTitle && (
          <div className="grid gap-1.5">
            <h2 className="text-sm font-semibold text-zinc-100">{listTitle}</h2>
            <ul className="list-disc pl-5 text-sm text-zinc-300" data-testid="subscription-events">
              {subscription.events.map((event) => (
                <li key={event}>{EVENT_LABELS[event as HolderEventName] ?? event}</li>
              ))}
            </ul>
          </div>
        )}
        {button && (
          <Form method="post">
            {field && <input type="hidden" name={field.name} value={field.value} />}
            <Button type="submit">{button}</Button>
          </Form>
        )}
      </Card>
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link to="/" className="text-violet-300 underline underline-offset-4 hover:text-violet-200">
          Back to Spooks
        </Link>
        <Link to="/notifications" className="text-violet-300 underline underline-offset-4 hover:text-violet-200">
          Notification settings
        </Link>
      </p>
    </section>
  );
}
