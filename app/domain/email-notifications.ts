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

export const confirmPath = (token: string) => `/api/notifications/email/confirm/${token}`;
export const unsubscribePath = (token: string) => `/api/notifications/email/unsubscribe/${token}`;

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

export function notificationMail(input: { title: string; body: string; link: string; address: string; unsubscribeUrl: string }): {
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
