/**
 * The signed outgoing webhooks channel (issue 24, item 5; docs/notifications.md): each
 * event goes to every active endpoint that asked for it, as a Standard Webhooks message: a POST of
 * `{ type, timestamp, data }` (at most 20 KB) with `webhook-id` (the same on every attempt), the attempt's
 * `webhook-timestamp` and `webhook-signature` (v1 HMAC-SHA256; two signatures for 24 h after a rotation).
 * Only a 2xx delivers; redirects are not followed; 15 s timeout; 10 attempts over about 75 h with jitter
 * (app/domain/webhooks.ts), 429/502/504 honour Retry-After; a 410 disables the endpoint at once and so do
 * 24 h of failures. The destination is checked public on every attempt.
 */
import { now as clockNow } from "../../app/domain/clock.ts";
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import {
  retryAfterMs,
  SLOW_DOWN_STATUSES,
  WEBHOOK_FAILING_DISABLES_AFTER_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_MAX_BODY_BYTES,
  WEBHOOK_MAX_RETRY_AFTER_MS,
  WEBHOOK_TIMEOUT_MS,
  webhookMessageId,
  webhookRetryDelay,
} from "../../app/domain/webhooks.ts";
import { checkDestinationUrl, DestinationError } from "../../app/utils/public-destination.server.ts";
import { postWebhook, WebhookTransportError, type WebhookPost } from "../../app/utils/webhook-post.server.ts";
import { signatureHeader } from "../../app/utils/webhook-signing.server.ts";
import {
  activeWebhookTargets,
  disableWebhook,
  findWebhook,
  markWebhookFailing,
  markWebhookSucceeded,
  type WebhookEndpointSecrets,
} from "../../db/queries/webhooks.server.ts";
import type { Queryable } from "../../db/client.server.ts";
import type { DeliveryAttempt, DeliveryResult, NotificationChannel, OutboxEvent } from "./channel.server.ts";

export type WebhookChannelOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: also http and loopback/private destinations (tests, the demo). */
  allowPrivate: boolean;
  /** PUBLIC_URL: the event's link is made absolute with it (left a path when unset). */
  publicUrl?: string;
  /** The clock (default: app/domain/clock.ts). */
  now?: () => Date;
  /** In [0, 1): the retry waits' jitter (default Math.random). */
  random?: () => number;
  /** The POST itself (default: node:http(s), no redirects, the destination checked at connection). */
  post?: WebhookPost;
  /** Per-attempt timeout (default 15 s). */
  timeoutMs?: number;
};

/** The message body: `{ type, timestamp, data }`, its `data` cut to its core when the whole passes 20 KB. */
export function webhookBody(event: OutboxEvent, publicUrl: string | undefined): string {
  const link = publicUrl ? new URL(event.link, publicUrl).toString() : event.link;
  const core = {
    id: event.id,
    subject: event.subject,
    ...(event.recipient ? { recipient: event.recipient } : {}),
    title: event.title,
    body: event.body,
    link,
  };
  const full = JSON.stringify({ type: event.event, timestamp: event.occurredAt.toISOString(), data: { ...event.data, ...core } });
  if (Buffer.byteLength(full) <= WEBHOOK_MAX_BODY_BYTES) return full;
  const trimmed = { ...core, truncated: true };
  let text = JSON.stringify({ type: event.event, timestamp: event.occurredAt.toISOString(), data: trimmed });
  // A body longer than the limit on its own (no event's is) is cut too, so the limit always holds.
  while (Buffer.byteLength(text) > WEBHOOK_MAX_BODY_BYTES) {
    trimmed.body = trimmed.body.slice(0, Math.floor(trimmed.body.length / 2));
    trimmed.title = trimmed.title.slice(0, 256);
    text = JSON.stringify({ type: event.event, timestamp: event.occurredAt.toISOString(), data: trimmed });
  }
  return text;
}

/** Disables the endpoint, in the database and in the row this batch keeps. */
async function disable(sql: Queryable, endpoint: WebhookEndpointSecrets, reason: string, at: Date): Promise<void> {
  await disableWebhook(sql, endpoint.id, reason, at);
  endpoint.active = false;
  endpoint.disabledReason = reason;
}

export function webhookChannel(options: WebhookChannelOptions): NotificationChannel {
  const now = options.now ?? clockNow;
  const random = options.random ?? Math.random;
  const post = options.post ?? postWebhook;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;

  // A claimed batch's endpoints, read once per batch; what this channel changes of one (failing, disabled) is
  // written to the database and to the kept row alike. An admin's change is seen from the next batch on.
  const endpointsByBatch = new WeakMap<object, Map<number, Promise<WebhookEndpointSecrets | null>>>();
  const endpointOf = (sql: Queryable, delivery: DeliveryAttempt) => {
    const id = Number(delivery.target);
    if (!Number.isSafeInteger(id)) return null;
    if (!delivery.batch) return findWebhook(sql, id);
    let endpoints = endpointsByBatch.get(delivery.batch);
    if (!endpoints) endpointsByBatch.set(delivery.batch, (endpoints = new Map<number, Promise<WebhookEndpointSecrets | null>>()));
    let endpoint = endpoints.get(id);
    if (!endpoint) endpoints.set(id, (endpoint = findWebhook(sql, id)));
    return endpoint;
  };

  return {
    name: "webhook",
    // Receivers key on webhook-id (the delivery's, the same on every attempt): Standard Webhooks' idempotency key.
    repeatsAreIdempotent: true,

    // The admin's test is an event no endpoint subscribes to: it goes to every active endpoint (issue 32, item 11).
    targets: (sql, event) => activeWebhookTargets(sql, event.test ? null : event.event),
    targetsKey: (event) => (event.test ? "the admin's test" : event.event),

    async deliver(sql, event, delivery): Promise<DeliveryResult> {
      const endpoint = await endpointOf(sql, delivery);
      if (!endpoint) return { outcome: "failed", error: "The webhook was deleted" };
      if (!endpoint.active) return { outcome: "failed", error: `The webhook is disabled: ${endpoint.disabledReason}` };

      const at = now();
      const id = webhookMessageId(endpoint.messageSalt, delivery.id);
      const timestamp = Math.floor(at.getTime() / 1000);
      const body = webhookBody(event, options.publicUrl);
      const secrets = [endpoint.secret];
      if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > at) {
        secrets.push(endpoint.previousSecret);
      }
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(secrets, id, timestamp, body),
        "user-agent": "Spooks-Webhooks/1",
      };

      let status: number | undefined;
      let error: string;
      let retryAfter: number | null = null;
      try {
        checkDestinationUrl(endpoint.url, options.allowPrivate);
        const answer = await post(endpoint.url, { headers, body, timeoutMs, allowPrivate: options.allowPrivate });
        status = answer.status;
        if (status >= 200 && status < 300) {
          if (endpoint.failingSince) {
            await markWebhookSucceeded(sql, endpoint.id);
            endpoint.failingSince = null;
          }
          return { outcome: "delivered", statusCode: status };
        }
        const said = withoutControlCharacters(answer.text).trim().replace(/\s+/g, " ").slice(0, 200);
        error = `HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}${said ? `: ${said}` : ""}`;
        if (status === 410) {
          const reason = "The receiver answered 410 Gone";
          await disable(sql, endpoint, reason, at);
          return { outcome: "failed", statusCode: status, error: `${error}; the webhook is disabled` };
        }
        if (SLOW_DOWN_STATUSES.has(status)) retryAfter = retryAfterMs(answer.headers["retry-after"], at);
      } catch (failure) {
        const destination =
          failure instanceof DestinationError || (failure instanceof WebhookTransportError && failure.code === "EDESTINATION");
        if (destination) {
          const reason = `The destination is not allowed: ${failure.message}`;
          await disable(sql, endpoint, reason, at);
          return { outcome: "failed", error: reason };
        }
        error = failure instanceof Error ? failure.message : String(failure);
      }

      const failingSince = (endpoint.failingSince = await markWebhookFailing(sql, endpoint.id, at));
      if (at.getTime() - failingSince.getTime() >= WEBHOOK_FAILING_DISABLES_AFTER_MS) {
        const reason = `No delivery accepted for 24 hours (failing since ${failingSince.toISOString()})`;
        await disable(sql, endpoint, reason, at);
        return { outcome: "failed", statusCode: status, error: `${error}; the webhook is disabled` };
      }
      const attemptsMade = delivery.attempts + 1;
      const delay = webhookRetryDelay(attemptsMade, random());
      if (delay === null || attemptsMade >= WEBHOOK_MAX_ATTEMPTS) {
        return { outcome: "failed", statusCode: status, error: `${error}; all ${WEBHOOK_MAX_ATTEMPTS} attempts failed` };
      }
      // At least a second even when the receiver says 0, at most a day whatever it says.
      const wait = retryAfter === null ? delay : Math.min(Math.max(retryAfter, 1000), WEBHOOK_MAX_RETRY_AFTER_MS);
      return { outcome: "retry", retryAt: new Date(at.getTime() + wait), statusCode: status, error };
    },
  };
}
