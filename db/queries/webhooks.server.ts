/**
 * Signed webhook endpoints (migration 0020) and their deliveries (notification_deliveries, channel
 * 'webhook', target = the endpoint's id). Admin changes write their audit row in the same transaction.
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { randomBytes } from "node:crypto";
import { now } from "../../app/domain/clock.ts";
import { conflict, notFound } from "../../app/domain/errors.ts";
import {
  deliveryIdOfMessage,
  WEBHOOK_PREVIOUS_SECRET_MS,
  webhookDeliveryStatus,
  webhookMessageId,
  type WebhookDeliveryStatus,
} from "../../app/domain/webhooks.ts";
import type { NotificationEventName } from "../../app/domain/notifications.ts";
import { redactWebhookUrl } from "../../app/domain/redact.ts";
import { newWebhookSecret } from "../../app/utils/webhook-signing.server.ts";
import type { Queryable } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type WebhookEndpoint = {
  id: number;
  url: string;
  events: NotificationEventName[];
  active: boolean;
  disabledReason: string | null;
};

export type WebhookEndpointSecrets = WebhookEndpoint & {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  messageSalt: string;
  failingSince: Date | null;
};

const SALT_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

function newSalt(): string {
  return Array.from(randomBytes(12), (byte) => SALT_ALPHABET[byte % SALT_ALPHABET.length]).join("");
}

const publicView = ({ id, url, events, active, disabledReason }: WebhookEndpoint): WebhookEndpoint => ({
  id,
  url,
  events,
  active,
  disabledReason,
});

/** The endpoint as the audit trail keeps it: its URL as origin and hash (the path is often the receiver's secret). */
const auditView = (row: WebhookEndpoint): WebhookEndpoint => ({ ...publicView(row), url: redactWebhookUrl(row.url) });

export async function createWebhook(
  sql: Queryable,
  input: { url: string; events: NotificationEventName[]; actor: Actor },
): Promise<WebhookEndpoint & { secret: string }> {
  return inTransaction(sql, async (tx) => {
    const [row] = await tx<WebhookEndpointSecrets[]>`
      insert into webhook_endpoints (url, events, secret, message_salt, created_at)
      values (${input.url}, ${input.events}, ${newWebhookSecret()}, ${newSalt()}, ${now()})
      returning id, url, events, active, disabled_reason, secret`;
    // Never the secret: the audit trail is read by whoever may read the admin page, for ever.
    await recordAudit(tx, input.actor, "webhook.create", `webhook:${row.id}`, {}, { after: auditView(row) });
    return { ...publicView(row), secret: row.secret };
  });
}

export async function listWebhooks(sql: Queryable): Promise<WebhookEndpoint[]> {
  const rows = await sql<WebhookEndpoint[]>`
    select id, url, events, active, disabled_reason from webhook_endpoints order by id`;
  return rows.map(publicView);
}

export async function findWebhook(sql: Queryable, id: number): Promise<WebhookEndpointSecrets | null> {
  const [row] = await sql<WebhookEndpointSecrets[]>`
    select id, url, events, active, disabled_reason, secret, previous_secret, previous_secret_expires_at,
           message_salt, failing_since
    from webhook_endpoints where id = ${id}`;
  return row ?? null;
}

async function requireWebhook(sql: Queryable, id: number, lock = false): Promise<WebhookEndpointSecrets> {
  const [row] = await sql<WebhookEndpointSecrets[]>`
    select id, url, events, active, disabled_reason, secret, previous_secret, previous_secret_expires_at,
           message_salt, failing_since
    from webhook_endpoints where id = ${id} ${lock ? sql`for update` : sql``}`;
  if (!row) throw notFound("Webhook not found");
  return row;
}

/** Deletes the endpoint; its deliveries not yet made are skipped (nothing goes to it any more). */
export async function deleteWebhook(sql: Queryable, input: { id: number; actor: Actor }): Promise<void> {
  await inTransaction(sql, async (tx) => {
    const row = await requireWebhook(tx, input.id, true);
    await tx`delete from webhook_endpoints where id = ${input.id}`;
    await tx`
      update notification_deliveries set state = 'skipped', last_error = 'The webhook was deleted', claimed_until = null
      where channel = 'webhook' and target = ${String(input.id)} and state in ('pending', 'retrying')`;
    await recordAudit(tx, input.actor, "webhook.delete", `webhook:${input.id}`, {}, { before: auditView(row) });
  });
}

/**
 * A new secret for the endpoint, answered once; the one it replaces keeps signing beside it (a second
 * `v1,` signature) for 24 hours, so the receiver can switch without losing a message.
 */
export async function rotateWebhookSecret(
  sql: Queryable,
  input: { id: number; actor: Actor },
): Promise<{ id: number; secret: string; previousSecretExpiresAt: Date }> {
  return inTransaction(sql, async (tx) => {
    await requireWebhook(tx, input.id, true);
    const at = now();
    const expires = new Date(at.getTime() + WEBHOOK_PREVIOUS_SECRET_MS);
    const [row] = await tx<{ secret: string }[]>`
      update webhook_endpoints
      set previous_secret = secret, previous_secret_expires_at = ${expires}, secret = ${newWebhookSecret()}
      where id = ${input.id}
      returning secret`;
    await recordAudit(tx, input.actor, "webhook.rotate-secret", `webhook:${input.id}`, { previousSecretExpiresAt: expires });
    return { id: input.id, secret: row.secret, previousSecretExpiresAt: expires };
  });
}

export type WebhookDeliveryRow = {
  id: string;
  event: NotificationEventName;
  attempts: number;
  status: WebhookDeliveryStatus;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
};

/** The endpoint's deliveries, newest first, each named by its webhook-id. */
export async function listWebhookDeliveries(sql: Queryable, input: { id: number; limit: number }): Promise<WebhookDeliveryRow[]> {
  const endpoint = await requireWebhook(sql, input.id);
  const rows = await sql<
    {
      id: number;
      event: NotificationEventName;
      attempts: number;
      state: string;
      lastStatusCode: number | null;
      lastError: string | null;
      nextAttemptAt: Date;
      createdAt: Date;
      deliveredAt: Date | null;
    }[]
  >`
    select d.id, e.event, d.attempts, d.state, d.last_status_code, d.last_error, d.next_attempt_at, d.created_at, d.delivered_at
    from notification_deliveries d join notification_events e on e.id = d.event_id
    where d.channel = 'webhook' and d.target = ${String(input.id)}
    order by d.id desc
    limit ${input.limit}`;
  return rows.map((row) => {
    const status = webhookDeliveryStatus(row.state);
    return {
      id: webhookMessageId(endpoint.messageSalt, row.id),
      event: row.event,
      attempts: row.attempts,
      status,
      lastStatusCode: row.lastStatusCode,
      lastError: row.lastError,
      nextAttemptAt: status === "retrying" ? row.nextAttemptAt : null,
      createdAt: row.createdAt,
      deliveredAt: row.deliveredAt,
    };
  });
}

/**
 * Sends a delivery again, with the same webhook-id (the receiver's idempotency key) and a fresh schedule:
 * due now, its attempts counted from 0. Not while an attempt is in flight, nor to a disabled endpoint.
 */
export async function replayWebhookDelivery(
  sql: Queryable,
  input: { id: number; messageId: string; actor: Actor },
): Promise<{ id: string; status: "retrying"; nextAttemptAt: Date }> {
  return inTransaction(sql, async (tx) => {
    const endpoint = await requireWebhook(tx, input.id, true);
    const deliveryId = deliveryIdOfMessage(input.messageId, endpoint.messageSalt);
    const [delivery] =
      deliveryId === null
        ? []
        : await tx<{ id: number; state: string; claimedUntil: Date | null }[]>`
            select id, state, claimed_until from notification_deliveries
            where id = ${deliveryId} and channel = 'webhook' and target = ${String(input.id)}
            for update`;
    if (!delivery) throw notFound("Delivery not found");
    if (!endpoint.active) throw conflict(`The webhook is disabled (${endpoint.disabledReason}): add it again to send to it`);
    const at = now();
    if (delivery.state === "sending" && delivery.claimedUntil && delivery.claimedUntil > at) {
      throw conflict("An attempt of this delivery is under way; try again when it is over");
    }
    await tx`
      update notification_deliveries
      set state = 'pending', attempts = 0, next_attempt_at = ${at}, claimed_until = null, last_error = null, delivered_at = null
      where id = ${delivery.id}`;
    await recordAudit(
      tx,
      input.actor,
      "webhook.replay",
      `webhook:${input.id}`,
      { deliveryId: input.messageId },
      { before: { state: delivery.state }, after: { state: "pending" } },
    );
    return { id: input.messageId, status: "retrying", nextAttemptAt: at };
  });
}

// What the channel writes --------------------------------------------------------------------------

/** The active endpoints that asked for `event` (null: every active endpoint, for the admin's test). */
export async function activeWebhookTargets(sql: Queryable, event: string | null): Promise<string[]> {
  const rows = await sql<{ id: number }[]>`
    select id from webhook_endpoints where active and (${event}::text is null or ${event} = any(events)) order by id`;
  return rows.map((row) => String(row.id));
}

/** A delivery was accepted: the endpoint is no longer failing. */
export async function markWebhookSucceeded(sql: Queryable, id: number): Promise<void> {
  await sql`update webhook_endpoints set failing_since = null where id = ${id} and failing_since is not null`;
}

/** A delivery failed: when the endpoint's failing began (this moment if it was not failing). */
export async function markWebhookFailing(sql: Queryable, id: number, at: Date): Promise<Date> {
  const [row] = await sql<{ failingSince: Date }[]>`
    update webhook_endpoints set failing_since = coalesce(failing_since, ${at}) where id = ${id} returning failing_since`;
  return row?.failingSince ?? at;
}

/** Disables the endpoint (once) with the reason the admin is shown; written to the audit trail by the system. */
export async function disableWebhook(sql: Queryable, id: number, reason: string, at: Date): Promise<void> {
  await inTransaction(sql, async (tx) => {
    const rows = await tx`
      update webhook_endpoints set active = false, disabled_reason = ${withoutControlCharacters(reason)}, disabled_at = ${at}
      where id = ${id} and active returning id`;
    if (rows.length === 1) {
      await recordAudit(
        tx,
        { kind: "system" },
        "webhook.disable",
        `webhook:${id}`,
        { reason: withoutControlCharacters(reason) },
        { before: { active: true }, after: { active: false } },
      );
    }
  });
}
