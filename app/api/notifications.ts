/**
 * Notifications (issue 24; docs/notifications.md): the site's list for an address (public), and the admin's view
 * of the deliveries: every delivery per channel with its state and the answer received, replay, send a test.
 */
import { z } from "zod";
import { NOTIFICATION_EVENTS, type NotificationEventName } from "../domain/notifications.ts";
import { addressParams, defineRoute, errorBody, notFoundIssue, timestamp, type ClientAnswer, errorAnswer } from "./kit.ts";

/** A list of notification event names (of `allowed`: every event by default), each once (an email subscription's, a webhook's). */
export function notificationEventsSchema(
  description: string,
  example: string[],
  allowed: readonly [NotificationEventName, ...NotificationEventName[]] = NOTIFICATION_EVENTS,
) {
  return z
    .array(z.enum(allowed, { error: `events must name notification events: ${allowed.join(", ")}` }), {
      error: "events must be a list of event names",
    })
    .min(1, "events must name at least one event")
    .max(allowed.length, "events names an event more than once")
    .refine((events) => new Set(events).size === events.length, "events names an event more than once")
    .meta({ description, examples: [example] });
}

const TAG = "Notifications";
const ADMIN_TAG = "Admin notifications";
const blankIsAbsent = (value: unknown) => (value === "" ? undefined : value);

export const NOTIFICATIONS_PAGE_DEFAULT = 20;
export const NOTIFICATIONS_PAGE_MAX = 100;
const CURSOR_MESSAGE = "cursor must be the nextCursor of an earlier page";

const cursorSchema = z.preprocess(
  blankIsAbsent,
  z
    .string()
    .refine((value) => /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value)), CURSOR_MESSAGE)
    .transform(Number)
    .optional()
    .meta({ description: "The `nextCursor` of the page before: the older entries." }),
);

const limitSchema = (fallback: number, max: number) =>
  z.preprocess(
    blankIsAbsent,
    z.coerce
      .number({ error: "limit must be a number" })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(max, `limit must be at most ${max}`)
      .default(fallback)
      .meta({ description: `How many entries a page holds (default ${fallback}, at most ${max}).` }),
  );

export const notificationEntrySchema = z
  .object({
    id: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The event's id: newer events have higher ids (the bell counts those above the last opened)." }),
    event: z.enum(NOTIFICATION_EVENTS),
    at: timestamp,
    title: z.string(),
    body: z.string(),
    link: z.string().meta({ description: "A path of the site (`/rewards`, `/giveaways/7/verify`)." }),
  })
  .meta({ id: "NotificationEntry" });

export const notificationsPageSchema = z
  .object({
    entries: z.array(notificationEntrySchema).meta({ description: "Newest first." }),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the older entries; null when there are none." }),
  })
  .meta({ id: "NotificationsPage" });

export const listNotifications = defineRoute({
  operationId: "listNotifications",
  method: "GET",
  path: "/api/notifications/{address}",
  tag: TAG,
  summary: "What happened, for a holder: the public events and the address's own, newest first",
  description:
    "Every public event (giveaway.opened, giveaway.closing_soon, giveaway.drawn, proposal.opened, proposal.closing_soon, proposal.closed) " +
    "and the address's personal ones (giveaway.won, stake.ended, points.adjusted), newest first, all derived from public facts. " +
    "Pages by keyset: pass `nextCursor` as `cursor`.",
  auth: "none",
  params: addressParams,
  query: z.object({ limit: limitSchema(NOTIFICATIONS_PAGE_DEFAULT, NOTIFICATIONS_PAGE_MAX), cursor: cursorSchema }),
  responses: {
    200: {
      description: "A page of entries (possibly empty).",
      schema: notificationsPageSchema,
      example: {
        entries: [
          {
            id: 42,
            event: "giveaway.won",
            at: "2026-11-25T18:00:03.000Z",
            title: "You won: Haunted Hoodie",
            body: 'Your ticket won the giveaway "Haunted Hoodie". The admin will be in touch.',
            link: "/giveaways/7/verify",
          },
          {
            id: 41,
            event: "giveaway.drawn",
            at: "2026-11-25T18:00:03.000Z",
            title: "Giveaway drawn: Haunted Hoodie",
            body: "Winner: DH5yai…mr7L. Anyone can verify the draw.",
            link: "/giveaways/7/verify",
          },
        ],
        nextCursor: "41",
      },
    },
    400: {
      description: "The address, `limit` or `cursor` breaks its rule (the message says which).",
      schema: errorBody,
      example: { message: CURSOR_MESSAGE },
    },
  },
});

// Admin ------------------------------------------------------------------------------------------------

const CHANNELS = ["discord", "webhook", "email"] as const;
const STATES = ["pending", "sending", "delivered", "retrying", "failed", "skipped"] as const;

export const deliverySchema = z
  .object({
    id: z.number().int().min(1),
    eventId: z.number().int().min(1),
    event: z.enum(NOTIFICATION_EVENTS),
    subject: z.string(),
    recipient: z.string().nullable().meta({ description: "The address of a personal event; null for a public one." }),
    title: z.string(),
    channel: z.enum(CHANNELS),
    target: z
      .string()
      .meta({ description: "Which one of the channel: a webhook endpoint's id, an email subscription's id; empty for Discord." }),
    state: z.enum(STATES),
    attempts: z.number().int().min(0),
    nextAttemptAt: timestamp,
    lastStatusCode: z.number().int().nullable().meta({ description: "The HTTP (or SMTP) status of the last answer." }),
    lastError: z.string().nullable().meta({ description: "The last answer received when it was not a success (its status and body)." }),
    deliveredAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({ id: "NotificationDelivery" });

/** A Discord post that failed (its webhook was deleted): the deliveries list's example, and the replay's before it is sent again. */
const EXAMPLE_FAILED_DELIVERY = {
  id: 12,
  eventId: 41,
  event: "giveaway.drawn",
  subject: "7",
  recipient: null,
  title: "Giveaway drawn: Haunted Hoodie",
  channel: "discord",
  target: "",
  state: "failed",
  attempts: 1,
  nextAttemptAt: "2026-11-25T18:00:03.000Z",
  lastStatusCode: 404,
  lastError: '404 {"message": "Unknown Webhook", "code": 10015}',
  deliveredAt: null,
  createdAt: "2026-11-25T18:00:03.000Z",
} as const;

export const deliveriesQuery = z.object({
  channel: z.preprocess(blankIsAbsent, z.enum(CHANNELS, { error: `channel must be one of ${CHANNELS.join(", ")}` }).optional()),
  state: z.preprocess(blankIsAbsent, z.enum(STATES, { error: `state must be one of ${STATES.join(", ")}` }).optional()),
  failed: z.preprocess(
    blankIsAbsent,
    z
      .enum(["true", "false"], { error: "failed must be true or false" })
      .transform((value) => value === "true")
      .optional()
      .meta({ description: "`true`: only failed deliveries and those retrying after a failure." }),
  ),
  limit: limitSchema(50, 200),
  cursor: cursorSchema,
});

export const listDeliveries = defineRoute({
  operationId: "listNotificationDeliveries",
  method: "GET",
  path: "/api/admin/notifications/deliveries",
  tag: ADMIN_TAG,
  summary: "Every delivery of every channel, newest first, with its state and the last answer",
  auth: "admin-session",
  requires: { permission: "read", doing: "read notification deliveries" },
  query: deliveriesQuery,
  responses: {
    200: {
      description: "One page of deliveries, newest first.",
      schema: z
        .object({ entries: z.array(deliverySchema), nextCursor: z.number().int().min(1).nullable() })
        .meta({ id: "NotificationDeliveriesPage" }),
      example: {
        entries: [EXAMPLE_FAILED_DELIVERY],
        nextCursor: null,
      },
    },
    400: errorAnswer("A filter breaks its rule.", "channel must be one of discord, webhook, email"),
  },
});

export const channelStatusSchema = z
  .object({
    channel: z.enum(CHANNELS),
    configured: z.boolean().meta({ description: "Whether this deployment sends on the channel (its settings are set)." }),
    disabledAt: timestamp.nullable(),
    disabledReason: z.string().nullable().meta({ description: "Why the channel was disabled (Discord's 404: the webhook is gone)." }),
    counts: z.record(z.string(), z.number().int().min(0)).meta({ description: "Deliveries by state." }),
    targets: z
      .number()
      .int()
      .min(0)
      .meta({
        description:
          "Where it can send now: 1 for a configured Discord channel not disabled, the active webhook endpoints, the confirmed email " +
          "subscriptions. 0: the channel cannot send (the tab never says 'Active' then).",
      }),
  })
  .meta({ id: "NotificationChannelStatus" });

export const listChannels = defineRoute({
  operationId: "listNotificationChannels",
  method: "GET",
  path: "/api/admin/notifications/channels",
  tag: ADMIN_TAG,
  summary: "The delivery channels: configured or not, disabled and why, deliveries by state",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the notification channels" },
  responses: {
    200: {
      description: "Every channel.",
      schema: z.array(channelStatusSchema),
      example: [
        { channel: "discord", configured: true, disabledAt: null, disabledReason: null, counts: { delivered: 120, failed: 1 }, targets: 1 },
        { channel: "webhook", configured: true, disabledAt: null, disabledReason: null, counts: {}, targets: 0 },
        { channel: "email", configured: false, disabledAt: null, disabledReason: null, counts: {}, targets: 0 },
      ],
    },
  },
});

const deliveryParams = z.object({
  id: z
    .string()
    .refine((value) => /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value)), notFoundIssue("Delivery not found"))
    .transform(Number)
    .meta({ description: "The delivery's id.", examples: ["12"] }),
});

export const replayDelivery = defineRoute({
  operationId: "replayNotificationDelivery",
  method: "POST",
  path: "/api/admin/notifications/deliveries/{id}/replay",
  tag: ADMIN_TAG,
  summary: "Send a delivery again",
  description: "Back to pending, due now: the worker sends it on its next pass (within NOTIFY_INTERVAL_S). No body. Audited.",
  auth: "admin-session",
  requires: { permission: "channels", doing: "replay notifications" },
  params: deliveryParams,
  responses: {
    200: {
      description: "The delivery, pending again.",
      schema: deliverySchema,
      example: { ...EXAMPLE_FAILED_DELIVERY, state: "pending", attempts: 0, nextAttemptAt: "2026-11-25T18:05:00.000Z" },
    },
    404: errorAnswer("No such delivery.", "Delivery not found"),
    409: errorAnswer("It is being sent right now.", "This delivery is being sent right now; replay it once it is done"),
  },
});

export const testResultSchema = z.object({
  target: z.string(),
  outcome: z.enum(["delivered", "retry", "failed"]),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable().meta({ description: "What the channel answered when it was not a success." }),
});

export const sendTest = defineRoute({
  operationId: "sendTestNotification",
  method: "POST",
  path: "/api/admin/notifications/test",
  tag: ADMIN_TAG,
  summary: "Send a test on a channel, now",
  description:
    "One test message (`Test notification from Spooks`) to each target of the channel, at once, outside the outbox; the answers as they came. " +
    "A test Discord accepts enables a disabled Discord channel again. Audited.",
  auth: "admin-session",
  requires: { permission: "channels", doing: "send test notifications" },
  body: {
    kind: "json",
    schema: z.object({ channel: z.enum(CHANNELS, { error: `channel must be one of ${CHANNELS.join(", ")}` }) }),
    example: { channel: "discord" },
  },
  responses: {
    200: {
      description: "What each target answered.",
      schema: z.object({ channel: z.enum(CHANNELS), results: z.array(testResultSchema) }),
      example: { channel: "discord", results: [{ target: "", outcome: "delivered", statusCode: 200, error: null }] },
    },
    400: errorAnswer("Not a channel.", "channel must be one of discord, webhook, email"),
    409: errorAnswer("The channel is not configured.", "The discord channel is not configured (set DISCORD_WEBHOOK_URL)"),
  },
});

export type NotificationsPage = ClientAnswer<typeof listNotifications>;
export type NotificationEntry = NotificationsPage["entries"][number];
export type DeliveriesPage = ClientAnswer<typeof listDeliveries>;
export type Delivery = DeliveriesPage["entries"][number];
export type ChannelStatus = ClientAnswer<typeof listChannels>[number];
export type TestSendAnswer = ClientAnswer<typeof sendTest>;

export const channelPostSchema = z
  .object({
    at: timestamp.meta({ description: "When the channel received it." }),
    event: z.string().meta({ description: "The event it announces (from its footer)." }),
    title: z.string(),
    description: z.string(),
    url: z.string().nullable().meta({ description: "Where its title links (the site's page of the event)." }),
  })
  .meta({ id: "ChannelPost" });

export const listChannelPosts = defineRoute({
  operationId: "listDemoChannelPosts",
  method: "GET",
  path: "/api/admin/notifications/channel-posts",
  tag: ADMIN_TAG,
  summary: "Demo mode's Discord channel: the posts its announcements channel received",
  description:
    "In demo mode the public events go to the Discord double's announcements channel (as DISCORD_WEBHOOK_URL names one in " +
    "production); this lists what it received, newest first, as the mail outbox lists the captured mail. Empty outside demo mode.",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the demo channel posts" },
  responses: {
    200: {
      description: "The posts.",
      schema: z.array(channelPostSchema),
      example: [
        {
          at: "2026-11-01T18:00:00.000Z",
          event: "giveaway.opened",
          title: "New giveaway: Haunted Hoodie",
          description: "Enter with 100 points a ticket until Nov 8, 2026, 18:00 UTC.",
          url: "http://127.0.0.1:3000/rewards",
        },
      ],
    },
  },
});
