/**
 * The email channel (issue 24, item 6; docs/notifications.md): an event goes to every
 * confirmed, still subscribed mailbox that asked for it (a personal event only to its wallet's). Every mail
 * carries RFC 8058 one-click unsubscribe. SMTP 4xx and unreachable servers are retried later; a 5xx is a
 * hard bounce, and the third unsubscribes the mailbox. At most 3 personal emails a day per wallet
 * (`giveaway.won` always goes): a fourth waits until the oldest of the three is a day old.
 */
import { now as clockNow } from "../../app/domain/clock.ts";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import {
  CONFIRMATION_GIVE_UP_AFTER_MS,
  confirmationMail,
  confirmPath,
  EMAIL_ALWAYS_SENT,
  EMAIL_DAILY_PERSONAL_LIMIT,
  EMAIL_GIVE_UP_AFTER_MS,
  emailRetryDelay,
  normalizedMailbox,
  notificationMail,
  unsubscribePagePath,
  unsubscribePath,
} from "../../app/domain/email-notifications.ts";
import { ADMIN_EVENTS, isPersonalEvent } from "../../app/domain/notifications.ts";
import { MailError, type Mailer } from "../../app/utils/mail.server.ts";
import type { Sql } from "../../db/client.server.ts";
import {
  claimDueConfirmations,
  clearBounces,
  emailTargets,
  findSubscription,
  forgetLinkTokens,
  HARD_BOUNCES_UNSUBSCRIBE,
  issueLinkToken,
  personalEmailsSince,
  recordConfirmation,
  recordHardBounce,
  type ConfirmationResult,
  type ConfirmationToSend,
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
  /** How long a claim holds a confirmation mail (the worker's lease). */
  leaseMs?: number;
  /**
   * Where the admin's "send a test" goes: the sender's own mailbox (MAIL_FROM), so a test reaches no subscriber; in
   * demo mode it lands in the mail outbox (issue 33, item 8). Unset: the email channel has no test target.
   */
  testRecipient?: string;
};

const CONFIRMATION_LEASE_MS = 60_000;

/** The target of the admin's test mail (not a subscription id). */
const TEST_TARGET = "test";

export function emailChannel(options: EmailChannelOptions): NotificationChannel {
  const now = options.now ?? clockNow;
  const absolute = (path: string) => new URL(path, options.publicUrl).toString();

  return {
    name: "email",
    // A repeat carries the delivery's own Message-ID, which mail clients fold.
    repeatsAreIdempotent: true,

    // The admin's test goes to the sender's own mailbox; admin events (approval.pending) never go out by email,
    // whatever a subscription holds.
    targets: async (sql, event) =>
      event.test ? (options.testRecipient ? [TEST_TARGET] : []) : ADMIN_EVENTS.has(event.event) ? [] : emailTargets(sql, event),

    async deliver(sql, event, delivery): Promise<DeliveryResult> {
      if (event.test && delivery.target === TEST_TARGET && options.testRecipient) {
        try {
          const sent = await options.mailer.send({
            to: options.testRecipient,
            subject: event.title,
            text: `${event.body}\n\n${absolute(event.link)}`,
          });
          return { outcome: "delivered", statusCode: Number(/^\d{3}/.exec(sent.response)?.[0] ?? 250) };
        } catch (failure) {
          const code = failure instanceof MailError ? failure.responseCode : undefined;
          return { outcome: "failed", statusCode: code, error: failure instanceof Error ? failure.message : String(failure) };
        }
      }
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

      // A token of its own in every mail, kept hashed (issue 32, item 6); forgotten when the mail did not go out.
      const unsubscribeToken = await issueLinkToken(sql, subscription.id, "unsubscribe", at);
      const unsubscribeUrl = absolute(unsubscribePath(unsubscribeToken));
      const mail = notificationMail({
        title: event.title,
        body: event.body,
        link: absolute(event.link),
        address: subscription.address,
        unsubscribeUrl: absolute(unsubscribePagePath(unsubscribeToken)),
      });
      try {
        const sent = await options.mailer.send({ to: subscription.email, ...mail, unsubscribeUrl });
        await clearBounces(sql, subscription.id);
        return { outcome: "delivered", statusCode: Number(/^\d{3}/.exec(sent.response)?.[0] ?? 250) };
      } catch (failure) {
        await forgetLinkTokens(sql, [unsubscribeToken]);
        const code = failure instanceof MailError ? failure.responseCode : undefined;
        const said = withoutControlCharacters(failure instanceof Error ? failure.message : String(failure));
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

    async sendQueued(sql) {
      const at = now();
      const until = new Date(at.getTime() + (options.leaseMs ?? CONFIRMATION_LEASE_MS));
      const due = await claimDueConfirmations(sql, at, until);
      let sent = 0;
      for (const confirmation of due) {
        const result = await sendConfirmation(sql, confirmation);
        await recordConfirmation(sql, confirmation.id, until, result);
        if (result.outcome === "sent") sent += 1;
      }
      return sent;
    },
  };

  /** One confirmation mail, outside any transaction: its links' tokens made now (kept hashed), then SMTP. */
  async function sendConfirmation(sql: Sql, confirmation: ConfirmationToSend): Promise<ConfirmationResult> {
    const subscription = confirmation.subscriptionId === null ? null : await findSubscription(sql, confirmation.subscriptionId);
    if (!subscription || normalizedMailbox(subscription.email) !== confirmation.mailbox) {
      return { outcome: "skipped", error: "The subscription was replaced before its confirmation was sent" };
    }
    if (subscription.confirmedAt) return { outcome: "skipped", error: "Already confirmed" };
    if (subscription.unsubscribedAt) return { outcome: "skipped", error: "Unsubscribed" };
    const at = now();
    if (at.getTime() - confirmation.requestedAt.getTime() > CONFIRMATION_GIVE_UP_AFTER_MS) {
      return { outcome: "failed", error: "Not sent within 24 hours of the request" };
    }
    const confirmToken = await issueLinkToken(sql, subscription.id, "confirm", at);
    const unsubscribeToken = await issueLinkToken(sql, subscription.id, "unsubscribe", at);
    const mail = confirmationMail({ address: subscription.address, confirmUrl: absolute(confirmPath(confirmToken)) });
    try {
      await options.mailer.send({ to: subscription.email, ...mail, unsubscribeUrl: absolute(unsubscribePath(unsubscribeToken)) });
      return { outcome: "sent", at: now() };
    } catch (failure) {
      await forgetLinkTokens(sql, [confirmToken, unsubscribeToken]);
      const code = failure instanceof MailError ? failure.responseCode : undefined;
      const said = withoutControlCharacters(failure instanceof Error ? failure.message : String(failure));
      if (code !== undefined && code >= 500) return { outcome: "failed", error: `SMTP ${said}` };
      return {
        outcome: "retry",
        retryAt: new Date(at.getTime() + emailRetryDelay(confirmation.attempts + 1)),
        error: code ? `SMTP ${said}` : said,
      };
    }
  }
}
