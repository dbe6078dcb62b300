/**
 * The rules of email notifications (issue 24, item 6; docs/notifications.md): the paths of
 * the confirmation and one-click unsubscribe links, the daily limit, the retry schedule, the texts.
 */
import type { NotificationEventName } from "./notifications.ts";

/** At most this many personal emails a wallet gets in 24 hours (`giveaway.won` always goes). */
export const EMAIL_DAILY_PERSONAL_LIMIT = 3;

/** The one personal event the daily limit never holds back. */
export const EMAIL_ALWAYS_SENT: ReadonlySet<NotificationEventName> = new Set(["giveaway.won"]);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The wait after each temporary failure (SMTP 4xx, no connection); the last repeats. */
export const EMAIL_RETRY_DELAYS_MS: readonly number[] = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR];

/** A mail not sent within this long after its event (failures, the daily limit) is given up. */
export const EMAIL_GIVE_UP_AFTER_MS = 72 * HOUR;

export function emailRetryDelay(attemptsMade: number): number {
  return EMAIL_RETRY_DELAYS_MS[Math.min(attemptsMade, EMAIL_RETRY_DELAYS_MS.length) - 1] ?? EMAIL_RETRY_DELAYS_MS[0];
}

/**
 * Confirmation mails a mailbox may be sent (issue 32, item 1), counted in the database from the requests made
 * (db/queries/email-subscriptions.server.ts): a mailbox gets at most one an hour and three a day, whoever asks.
 */
export const CONFIRMATIONS_PER_HOUR = 1;
export const CONFIRMATIONS_PER_DAY = 3;

/** A mailbox sent a confirmation this long ago and never confirmed since gets no new one (unless a confirmed wallet asks). */
export const UNCONFIRMED_SUPPRESSES_AFTER_MS = 7 * 24 * HOUR;

/** A confirmation mail not sent within this long of its request is given up (the holder asks again). */
export const CONFIRMATION_GIVE_UP_AFTER_MS = 24 * HOUR;

/**
 * The mailbox an address reaches, as the per-mailbox limits and the suppression list key it: lower case, without
 * a `+tag` (most providers deliver `name+x@` to `name@`), and at Gmail without dots in the name (it ignores them),
 * so spelling one mailbox many ways does not multiply its mail. Migration 0025 wrote the same rules in SQL.
 */
export function normalizedMailbox(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.lastIndexOf("@");
  const domain = lower.slice(at + 1);
  const local = lower.slice(0, at).split("+")[0];
  if (domain === "gmail.com" || domain === "googlemail.com") return `${local.replaceAll(".", "")}@gmail.com`;
  return `${local}@${domain}`;
}

/** The confirmation link a subscriber opens: a page of the site (issue 33, item 9), its Confirm button posts there. */
export const confirmPath = (token: string) => `/email/confirm/${token}`;
/** The one-click URL of the List-Unsubscribe header (RFC 8058): POST with no page. */
export const unsubscribePath = (token: string) => `/api/notifications/email/unsubscribe/${token}`;
/** The unsubscribe link a reader follows from an email's text: a page of the site with one button. */
export const unsubscribePagePath = (token: string) => `/email/unsubscribe/${token}`;

/** The one-click body (RFC 8058). */
export const ONE_CLICK_FIELD = "List-Unsubscribe";
export const ONE_CLICK_VALUE = "One-Click";

export function confirmationMail(input: { address: string; confirmUrl: string }): { subject: string; text: string } {
  return {
    subject: "Confirm your Spooks notifications",
    text: [
      `Someone holding the wallet ${input.address} asked Spooks to send its notifications to this address.`,
      "",
      "To confirm, open this link and press Confirm:",
      input.confirmUrl,
      "",
      "Nothing else is sent until you do. If it was not you, ignore this email.",
    ].join("\n"),
  };
}

export function notificationMail(input: {
  title: string;
  body: string;
  link: string;
  address: string;
  /** The unsubscribe page (unsubscribePagePath), for a reader; the header carries the one-click URL. */
  unsubscribeUrl: string;
}): {
  subject: string;
  text: string;
} {
  return {
    subject: input.title,
    text: [
      input.body,
      "",
      input.link,
      "",
      "--",
      `You get this because ${input.address} subscribed this address to Spooks notifications.`,
      `Unsubscribe at once: ${input.unsubscribeUrl}`,
    ].join("\n"),
  };
}
