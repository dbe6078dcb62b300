/**
 * The rules of signed outgoing webhooks (issue 24, item 5; docs/notifications.md), used by
 * the channel, the admin routes and the docs alike.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait after each failed attempt (the Standard Webhooks example): a first retry 5 s after the first
 * attempt, the last one 24 h after the ninth: 10 attempts over about 75 hours, each wait with ±20% jitter.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** ±20% of each wait, so receivers coming back after an outage are not hit by every sender at once. */
export const WEBHOOK_JITTER = 0.2;

/** An endpoint that has not accepted a delivery for this long, while failing, is disabled. */
export const WEBHOOK_FAILING_DISABLES_AFTER_MS = 24 * HOUR;

/** Each attempt waits this long for an answer. */
export const WEBHOOK_TIMEOUT_MS = 15 * SECOND;

/** The largest body sent: the event's `data` is cut down to its core beyond it. */
export const WEBHOOK_MAX_BODY_BYTES = 20 * 1024;

/** After a rotation the previous secret also signs for this long. */
export const WEBHOOK_PREVIOUS_SECRET_MS = 24 * HOUR;

/** The longest Retry-After honoured (a longer one waits this long). */
export const WEBHOOK_MAX_RETRY_AFTER_MS = 24 * HOUR;

/** Answers whose Retry-After is honoured (the receiver asks the sender to slow down). */
export const SLOW_DOWN_STATUSES: ReadonlySet<number> = new Set([429, 502, 504]);

/** The wait before the attempt after `attemptsMade` failed ones, with jitter (`random` in [0, 1)); null when none is left. */
export function webhookRetryDelay(attemptsMade: number, random: number): number | null {
  const base = WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - WEBHOOK_JITTER + 2 * WEBHOOK_JITTER * random));
}

/** A Retry-After value (seconds or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** The `webhook-id` of a delivery: the same on every attempt and replay, unique across databases (the endpoint's random salt). */
export function webhookMessageId(salt: string, deliveryId: number): string {
  return `msg_${salt}_${deliveryId}`;
}

/** The delivery id a `webhook-id` names, for the endpoint whose salt it carries; null when it is not one of its. */
export function deliveryIdOfMessage(messageId: string, salt: string): number | null {
  const prefix = `msg_${salt}_`;
  if (!messageId.startsWith(prefix)) return null;
  const rest = messageId.slice(prefix.length);
  return /^[1-9]\d{0,14}$/.test(rest) ? Number(rest) : null;
}

export const WEBHOOK_DELIVERY_STATUSES = ["delivered", "retrying", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** A notification_deliveries state as the admin reads it: not delivered yet but due again is "retrying". */
export function webhookDeliveryStatus(state: string): WebhookDeliveryStatus {
  if (state === "delivered") return "delivered";
  if (state === "failed" || state === "skipped") return "failed";
  return "retrying";
}
