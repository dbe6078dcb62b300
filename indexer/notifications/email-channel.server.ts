/**
 * The email channel (issue 24, item 6; docs/notifications.md): an event goes to every
 * confirmed, still subscribed mailbox that asked for it (a personal event only to its wallet's). Every mail
 * carries RFC 8058 one-click unsubscribe. SMTP 4xx and unreachable servers are retried later; a 5xx is a
 * hard bounce, and the third unsubscribes the mailbox. At most 3 personal emails a day per wallet
 * (`giveaway.won` always goes): a fourth waits until the oldest of the three is a day old.
 */
import { now as clockNow } from "../../app/domain/clock.ts";
import {
  EMAIL_ALWAYS_SENT,
  EMAIL_DAILY_PERSONAL_LIMIT,
  EMAIL_GIVE_UP_AFTER_MS,
  emailRetryDelay,
  notificationMail,
  unsubscribePath,
} from "../../app/domain/email-notifications.ts";
import { isPersonalEvent } from "../../app/domain/notifications.ts";
import { MailError, type Mailer } from "../../app/utils/mail.server.ts";
import {
  clearBounces,
  emailTargets,
  findSubscription,
  HARD_BOUNCES_UNSUBSCRIBE,
  personalEmailsSince,
  recordHardBounce,
} from "../../db/queries/email-subscriptions.server.ts";
import type { DeliveryResult, NotificationChannel } from "./channel.server.ts";

const DAY_MS = 24 * 3_600_000;

export type EmailChannelOptions = {
  /** app/utils/mail.server.ts createMailer(config.mail, sql): SMTP, or demo mode's capture. */
  mailer: Mailer;
  /** PUBLIC_URL (or the demo's own origin): the links and the unsubscribe URL are made absolute with it. */
  publicUrl: string;
  /** The clock (default: app/domain/clock.ts). */
  now?: () => Date;
};

export function emailChannel(options: EmailChannelOptions): NotificationChannel {
  const now = options.now ?? clockNow;
  const absolute = (path: string) => new URL(path, options.publicUrl).toString();

  return {
    name: "email",

    targets: (sql, event) => emailTargets(sql, event),

    async deliver(sql, event, delivery): Promise<DeliveryResult> {
      const id = Number(delivery.target);
      const subscription = Number.isSafeInteger(id) ? await findSubscription(sql, id) : null;
      if (!subscription) return { outcome: "failed", error: "The subscription was replaced or removed" };
      if (subscription.unsubscribedAt) {
        return {
          outcome: "failed",
          error: subscription.unsubscribeReason === "bounced" ? "Unsubscribed after 3 hard bounces" : "Unsubscribed",
        };
      }
      if (!subscription.confirmedAt) return { outcome: "failed", error: "The address was never confirmed" };
      const at = now();
      if (at.getTime() - delivery.createdAt.getTime() > EMAIL_GIVE_UP_AFTER_MS) {
        return { outcome: "failed", error: "Not sent within 72 hours of the event" };
      }

      if (isPersonalEvent(event.event) && !EMAIL_ALWAYS_SENT.has(event.event)) {
        const sent = await personalEmailsSince(sql, subscription.id, new Date(at.getTime() - DAY_MS));
        if (sent.length >= EMAIL_DAILY_PERSONAL_LIMIT) {
          const retryAt = new Date(sent[sent.length - EMAIL_DAILY_PERSONAL_LIMIT].getTime() + DAY_MS + 1000);
          return {
            outcome: "retry",
            retryAt,
            error: `${EMAIL_DAILY_PERSONAL_LIMIT} personal emails went to this wallet in the last 24 hours: held until ${retryAt.toISOString()}`,
          };
        }
      }

      const unsubscribeUrl = absolute(unsubscribePath(subscription.unsubscribeToken));
      const mail = notificationMail({
        title: event.title,
        body: event.body,
        link: absolute(event.link),
        address: subscription.address,
        unsubscribeUrl,
      });
      try {
        const sent = await options.mailer.send({ to: subscription.email, ...mail, unsubscribeUrl });
        await clearBounces(sql, subscription.id);
        return { outcome: "delivered", statusCode: Number(/^\d{3}/.exec(sent.response)?.[0] ?? 250) };
      } catch (failure) {
        const code = failure instanceof MailError ? failure.responseCode : undefined;
        const said = failure instanceof Error ? failure.message : String(failure);
        if (code !== undefined && code >= 500) {
          const bounces = await recordHardBounce(sql, subscription.id);
          const end =
            bounces >= HARD_BOUNCES_UNSUBSCRIBE
              ? `; hard bounce ${bounces}: unsubscribed`
              : `; hard bounce ${bounces} of ${HARD_BOUNCES_UNSUBSCRIBE}`;
          return { outcome: "failed", statusCode: code, error: `SMTP ${said}${end}` };
        }
        const retryAt = new Date(at.getTime() + emailRetryDelay(delivery.attempts + 1));
        return { outcome: "retry", retryAt, statusCode: code, error: code ? `SMTP ${said}` : said };
      }
    },
  };
}
