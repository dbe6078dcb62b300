/**
 * Signed outgoing webhooks (issue 24, item 5; docs/notifications.md): the admin adds
 * endpoints for community bots, sees each one's deliveries, replays one, rotates a secret. Every change is
 * audited. The secret is answered once, at creation (and at a rotation), never listed.
 */
import { z } from "zod";
import { WEBHOOK_DELIVERY_STATUSES } from "../domain/webhooks.ts";
import { defineRoute, notFoundIssue, pendingApprovalAnswer, rowIdParam, timestamp, errorAnswer } from "./kit.ts";
import { NOTIFICATION_EVENTS } from "../domain/notifications.ts";
import { notificationEventsSchema } from "./notifications.ts";

const TAG = "Webhooks";
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwNFh0qT4Hmx0=";
const EXAMPLE_MESSAGE_ID = "msg_7mQx2LbN9cRt_5321";

// Schemas ------------------------------------------------------------------------------------------

export const webhookEventsSchema = notificationEventsSchema(
  "The events sent to this endpoint (docs/notifications.md lists them).",
  [["giveaway.opened", "giveaway.drawn"]][0],
);

export const createWebhookBody = z.object({
  url: z
    .string({ error: "url is required" })
    .trim()
    .min(1, "url is required")
    .max(2000, "url is too long")
    .meta({
      description:
        "Where to POST: a public https URL (its host must resolve to public addresses only; WEBHOOK_ALLOW_PRIVATE=true also allows http and private ones).",
      examples: ["https://bot.example/spooks-webhook"],
    }),
  events: webhookEventsSchema,
});

const webhookSchema = z
  .object({
    id: z.number().int().min(1),
    url: z.string(),
    events: z.array(z.enum(NOTIFICATION_EVENTS)),
    active: z.boolean().meta({ description: "false once disabled (a 410 Gone, 24 h of failures, a destination no longer public)." }),
    disabledReason: z.string().nullable().meta({ description: "Why it was disabled; null while active." }),
  })
  .meta({ id: "Webhook" });

const createdWebhookSchema = z
  .object({
    id: z.number().int().min(1),
    url: z.string(),
    events: z.array(z.enum(NOTIFICATION_EVENTS)),
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+=*$/)
      .meta({ description: "The signing secret (Standard Webhooks): shown only in this answer. Keep it in the bot." }),
    active: z.literal(true),
  })
  .meta({ id: "CreatedWebhook" });

const deliverySchema = z
  .object({
    id: z.string().meta({ description: "The webhook-id: the same on every attempt and replay (the receiver's idempotency key)." }),
    event: z.enum(NOTIFICATION_EVENTS),
    attempts: z.number().int().min(0),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description: "delivered (a 2xx), retrying (not delivered yet; another attempt is due at nextAttemptAt), failed (given up).",
    }),
    lastStatusCode: z.number().int().nullable().meta({ description: "The HTTP status of the last attempt; null when none answered." }),
    lastError: z
      .string()
      .nullable()
      .meta({ description: "What the last failed attempt received (status and the answer's start, or the network error)." }),
    nextAttemptAt: timestamp.nullable(),
    createdAt: timestamp,
    deliveredAt: timestamp.nullable(),
  })
  .meta({ id: "WebhookDelivery" });

export const webhookParams = z.object({ id: rowIdParam("Webhook") });

export const deliveryParams = z.object({
  id: rowIdParam("Webhook"),
  deliveryId: z
    .string()
    .refine((value) => /^msg_[A-Za-z0-9]{1,40}_[1-9]\d{0,14}$/.test(value), notFoundIssue("Delivery not found"))
    .meta({ description: "The delivery's webhook-id (as listed).", examples: [EXAMPLE_MESSAGE_ID] }),
});

export const deliveriesQuery = z.object({
  limit: z
    .string()
    .regex(/^[1-9]\d{0,2}$/, "limit must be a whole number from 1 to 200")
    .transform(Number)
    .refine((limit) => limit <= 200, "limit must be a whole number from 1 to 200")
    .default(50)
    .meta({ description: "How many, newest first: 1 to 200 (50 by default)." }),
});

const EXAMPLE_WEBHOOK = {
  id: 3,
  url: "https://bot.example/spooks-webhook",
  events: ["giveaway.opened", "giveaway.drawn"],
  active: true,
  disabledReason: null,
};

// Routes -------------------------------------------------------------------------------------------

export const createWebhook = defineRoute({
  operationId: "createWebhook",
  method: "POST",
  path: "/api/admin/webhooks",
  tag: TAG,
  summary: "Add a signed webhook endpoint",
  description:
    "Every event named in `events` is POSTed to `url` as a Standard Webhooks message, signed with the secret answered here (and only here). " +
    "The host is resolved now and on every delivery; a destination that is not public is refused. Audited (without the secret).",
  auth: "admin-session",
  requires: { permission: "webhooks", doing: "add webhooks" },
  body: {
    kind: "json",
    schema: createWebhookBody,
    example: { url: "https://bot.example/spooks-webhook", events: ["giveaway.opened", "giveaway.drawn"] },
  },
  responses: {
    202: pendingApprovalAnswer,
    201: {
      description: "Added; the secret is shown this once.",
      schema: createdWebhookSchema,
      example: {
        id: 3,
        url: "https://bot.example/spooks-webhook",
        events: ["giveaway.opened", "giveaway.drawn"],
        secret: EXAMPLE_SECRET,
        active: true,
      },
    },
    400: errorAnswer("The URL is not https, not public or does not resolve, or an event name is unknown.", "url must be an https:// URL"),
  },
});

export const listWebhooks = defineRoute({
  operationId: "listWebhooks",
  method: "GET",
  path: "/api/admin/webhooks",
  tag: TAG,
  summary: "The webhook endpoints",
  description: "Every endpoint, oldest first, with whether it is active and why not. No secrets.",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the webhooks" },
  responses: {
    200: { description: "The endpoints.", schema: z.array(webhookSchema), example: [EXAMPLE_WEBHOOK] },
  },
});

export const deleteWebhook = defineRoute({
  operationId: "deleteWebhook",
  method: "DELETE",
  path: "/api/admin/webhooks/{id}",
  tag: TAG,
  summary: "Delete a webhook endpoint",
  description: "Nothing more is sent to it; its deliveries not yet made are skipped. Audited.",
  auth: "admin-session",
  requires: { permission: "webhooks", doing: "delete webhooks" },
  params: webhookParams,
  responses: {
    202: pendingApprovalAnswer,
    200: { description: "Deleted.", schema: z.object({ success: z.literal(true) }), example: { success: true } },
    404: errorAnswer("No such webhook.", "Webhook not found"),
  },
});

export const rotateWebhookSecret = defineRoute({
  operationId: "rotateWebhookSecret",
  method: "POST",
  path: "/api/admin/webhooks/{id}/rotate-secret",
  tag: TAG,
  summary: "Rotate a webhook's signing secret",
  description:
    "A new secret, answered this once. For 24 hours every message carries two signatures (`v1,<new> v1,<old>`), so the bot can switch " +
    "to the new secret at its own pace; after that only the new one signs. No body. Audited (without the secret).",
  auth: "admin-session",
  requires: { permission: "webhooks", doing: "rotate webhook secrets" },
  params: webhookParams,
  responses: {
    202: pendingApprovalAnswer,
    200: {
      description: "Rotated.",
      schema: z
        .object({ id: z.number().int().min(1), secret: createdWebhookSchema.shape.secret, previousSecretExpiresAt: timestamp })
        .meta({ id: "RotatedWebhookSecret" }),
      example: { id: 3, secret: EXAMPLE_SECRET, previousSecretExpiresAt: "2026-11-02T10:30:00.000Z" },
    },
    404: errorAnswer("No such webhook.", "Webhook not found"),
  },
});

export const listWebhookDeliveries = defineRoute({
  operationId: "listWebhookDeliveries",
  method: "GET",
  path: "/api/admin/webhooks/{id}/deliveries",
  tag: TAG,
  summary: "A webhook's deliveries, newest first",
  auth: "admin-session",
  requires: { permission: "read", doing: "read webhook deliveries" },
  params: webhookParams,
  query: deliveriesQuery,
  responses: {
    200: {
      description: "The deliveries.",
      schema: z.array(deliverySchema),
      example: [
        {
          id: EXAMPLE_MESSAGE_ID,
          event: "giveaway.drawn",
          attempts: 2,
          status: "retrying",
          lastStatusCode: 503,
          lastError: "HTTP 503: upstream unavailable",
          nextAttemptAt: "2026-11-01T18:05:05.000Z",
          createdAt: "2026-11-01T18:00:00.000Z",
          deliveredAt: null,
        },
      ],
    },
    404: errorAnswer("No such webhook.", "Webhook not found"),
  },
});

export const replayWebhookDelivery = defineRoute({
  operationId: "replayWebhookDelivery",
  method: "POST",
  path: "/api/admin/webhooks/{id}/deliveries/{deliveryId}/replay",
  tag: TAG,
  summary: "Send a delivery again",
  description:
    "The same message (same webhook-id, so a bot that already has it can ignore it) is due again now, with a fresh schedule of attempts. " +
    "Not to a disabled webhook, nor while an attempt is under way. No body. Audited.",
  auth: "admin-session",
  requires: { permission: "webhooks", doing: "replay webhook deliveries" },
  params: deliveryParams,
  responses: {
    200: {
      description: "Due again now.",
      schema: z.object({ id: z.string(), status: z.literal("retrying"), nextAttemptAt: timestamp }),
      example: { id: EXAMPLE_MESSAGE_ID, status: "retrying", nextAttemptAt: "2026-11-01T18:10:00.000Z" },
    },
    404: errorAnswer("No such webhook, or no such delivery of it.", "Delivery not found"),
    409: errorAnswer(
      "The webhook is disabled, or an attempt is under way.",
      "The webhook is disabled (The receiver answered 410 Gone): add it again to send to it",
    ),
  },
});
