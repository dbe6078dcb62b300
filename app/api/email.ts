/**
 * Email notifications, only with consent (issue 24, item 6; docs/notifications.md): a holder
 * signs the consent, opens the emailed confirmation link, and every later mail carries a one-click
 * unsubscribe URL (RFC 8058). In demo mode mail is captured for the admin's outbox view instead of sent.
 */
import { z } from "zod";
import { addressParams, defineRoute, notFoundIssue, signedFields, timestamp, errorAnswer } from "./kit.ts";
import { HOLDER_EVENTS, NOTIFICATION_EVENTS } from "../domain/notifications.ts";
import { notificationEventsSchema } from "./notifications.ts";

const TAG = "Email notifications";
const EXAMPLE_ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const EXAMPLE_TOKEN = "q1Jb8n6l0cTzV4hX2mYpR9sWkE3dG5aF7uQiO0LrNvc";

export const emailEventsSchema = notificationEventsSchema(
  "The events to email: the wallet's own (giveaway.won, stake.ended, points.adjusted) and any public ones.",
  [["giveaway.won", "stake.ended", "points.adjusted"]][0],
  HOLDER_EVENTS as [(typeof HOLDER_EVENTS)[number], ...(typeof HOLDER_EVENTS)[number][]],
);

export const subscribeEmailBody = z.object({
  ...signedFields,
  email: z
    .email({ error: "email must be an email address" })
    .max(254, "email is too long")
    .meta({ description: "The mailbox, exactly as the signed message names it.", examples: ["holder@example.com"] }),
  events: emailEventsSchema,
});

const tokenParams = (what: string) =>
  z.object({
    token: z
      .string()
      .refine((value) => /^[A-Za-z0-9_-]{43}$/.test(value), notFoundIssue(`${what} not found`))
      .meta({ description: `The ${what.toLowerCase()}'s token, from the email's link.`, examples: [EXAMPLE_TOKEN] }),
  });

export const confirmParams = tokenParams("Confirmation link");
export const unsubscribeParams = tokenParams("Unsubscribe link");

const subscriptionSchema = z
  .object({
    address: z.string(),
    email: z.string(),
    events: z.array(z.enum(NOTIFICATION_EVENTS)),
    confirmed: z.boolean().meta({ description: "false until the emailed link is opened; nothing is sent before." }),
  })
  .meta({ id: "EmailSubscription" });

const EXAMPLE_PAGE =
  '<!doctype html>\n<html lang="en"><head>…</head><body><main><h1>…</h1><p>…</p><form method="post">…</form></main></body></html>\n';

const htmlPage = (description: string) => ({ description, mediaType: "text/html", schema: z.string(), example: EXAMPLE_PAGE });

// Routes -------------------------------------------------------------------------------------------

export const subscribeEmail = defineRoute({
  operationId: "subscribeEmail",
  method: "POST",
  path: "/api/notifications/email",
  tag: TAG,
  summary: "Subscribe a wallet's notifications to an email address",
  description:
    "The wallet signs its consent; a confirmation email with a link follows (sent by the notification worker within NOTIFY_INTERVAL_S, " +
    "outside this request), and nothing else is sent until the link is opened and confirmed. " +
    "Only a wallet that holds or has staked a Spooks item may ask (403 otherwise). Each mailbox (compared in lower case, without a " +
    "+tag, at Gmail without dots) gets at most 1 confirmation email an hour and 3 a day, whoever asks (429 with Retry-After). A " +
    "mailbox that unsubscribed, bounced three times or left a confirmation unconfirmed for 7 days gets none (403) unless the asking " +
    "wallet is a confirmed wallet: its own subscription's link was opened. " +
    "One address per wallet: a new subscription replaces the previous one (and needs its own confirmation). " +
    "At most 3 personal emails a day (giveaway.won always goes). Every email carries one-click unsubscribe (RFC 8058).",
  auth: "signature",
  rateLimit: "email",
  signedMessage: "email-subscribe",
  body: {
    kind: "json",
    schema: subscribeEmailBody,
    example: {
      address: EXAMPLE_ADDRESS,
      email: "holder@example.com",
      events: ["giveaway.won", "stake.ended"],
      message: `Send Spooks notifications for ${EXAMPLE_ADDRESS} to holder@example.com. Timestamp: 2026-10-31T18:00:00.000Z`,
      signature: "H6k+dZwJ8oOei3PCSpdj603fDvhlhQ+sqaFNIDvo/bI+Xh6zyIKGzZpyud6YhZ1a5mcrwMVtTWL+VXq/hC5Zj7s=",
    },
  },
  responses: {
    201: {
      description: "Recorded; the confirmation email is on its way.",
      schema: subscriptionSchema,
      example: { address: EXAMPLE_ADDRESS, email: "holder@example.com", events: ["giveaway.won", "stake.ended"], confirmed: false },
    },
    400: errorAnswer("A field breaks its rule, or the signed message names another address or email.", "email must be an email address"),
    404: errorAnswer("This site sends no email (SMTP_URL and MAIL_FROM are not set).", "This site does not send email notifications"),
    403: errorAnswer(
      "The wallet holds no item and never staked one, or the mailbox asked for no more mail (unsubscribed, bounced, or left a " +
        "confirmation unconfirmed for 7 days) and the wallet's own subscription is not confirmed.",
      "Only a wallet that holds or has staked a Spooks item can subscribe to email notifications",
    ),
    429: {
      ...errorAnswer(
        "This mailbox was sent a confirmation email within the last hour, or three within the last day (or, as for every route, " +
          "too many requests from your IP address: RATE_LIMIT_EMAIL_PER_MIN).",
        "A confirmation email went to this mailbox recently (at most 1 an hour and 3 a day): try again in 42 minutes",
      ),
      headers: { "Retry-After": "Seconds until the mailbox (or your address) may ask again." },
    },
  },
});

export const getEmailSubscription = defineRoute({
  operationId: "getEmailSubscription",
  method: "GET",
  path: "/api/notifications/email/{address}",
  tag: TAG,
  summary: "Whether a wallet's notifications go to an email address",
  description: "Public, so the mailbox is masked (h•••r@example.com): enough for its owner to recognise it.",
  auth: "none",
  params: addressParams,
  responses: {
    200: {
      description: "The wallet's subscription (subscribed: false when none, or unsubscribed).",
      schema: z
        .object({
          available: z
            .boolean()
            .meta({ description: "Whether this site sends email notifications at all (SMTP_URL and MAIL_FROM, or demo mode)." }),
          subscribed: z.boolean(),
          confirmed: z.boolean(),
          email: z.string().nullable(),
          events: z.array(z.enum(NOTIFICATION_EVENTS)),
        })
        .meta({ id: "EmailSubscriptionStatus" }),
      example: { available: true, subscribed: true, confirmed: true, email: "h•••r@example.com", events: ["giveaway.won"] },
    },
  },
});

export const confirmEmailPage = defineRoute({
  operationId: "confirmEmailPage",
  method: "GET",
  path: "/api/notifications/email/confirm/{token}",
  tag: TAG,
  summary: "The confirmation link's page",
  description:
    "A page with one Confirm button (a POST to the same URL): opening the link alone confirms nothing, so a mail scanner fetching it cannot.",
  auth: "none",
  params: confirmParams,
  responses: {
    200: htmlPage("The page."),
    404: errorAnswer("No subscription has this link (replaced by a newer one, or mistyped).", "Confirmation link not found"),
  },
});

export const confirmEmail = defineRoute({
  operationId: "confirmEmail",
  method: "POST",
  path: "/api/notifications/email/confirm/{token}",
  tag: TAG,
  summary: "Confirm an email subscription",
  description: "From the confirmation page's button (any body, or none). Notifications start from here.",
  auth: "none",
  params: confirmParams,
  responses: {
    200: {
      description: "Confirmed: JSON, or a page saying so to a browser (Accept: text/html, as the page's button sends).",
      schema: z.object({ confirmed: z.literal(true), address: z.string() }),
      example: { confirmed: true, address: EXAMPLE_ADDRESS },
      alternatives: { "text/html": { schema: z.string(), example: EXAMPLE_PAGE } },
    },
    404: errorAnswer("No subscription has this link.", "Confirmation link not found"),
  },
});

export const unsubscribePage = defineRoute({
  operationId: "unsubscribePage",
  method: "GET",
  path: "/api/notifications/email/unsubscribe/{token}",
  tag: TAG,
  summary: "The unsubscribe link's page",
  description: "A page with one Unsubscribe button, which POSTs `List-Unsubscribe=One-Click` here. Opening it changes nothing.",
  auth: "none",
  params: unsubscribeParams,
  responses: {
    200: htmlPage("The page."),
    404: errorAnswer("No subscription has this link.", "Unsubscribe link not found"),
  },
});

export const unsubscribeEmail = defineRoute({
  operationId: "unsubscribeEmail",
  method: "POST",
  path: "/api/notifications/email/unsubscribe/{token}",
  tag: TAG,
  summary: "One-click unsubscribe (RFC 8058)",
  description:
    "The List-Unsubscribe URL of every email. A POST whose body (`application/x-www-form-urlencoded` or `multipart/form-data`) holds " +
    "`List-Unsubscribe=One-Click` stops all mail to the address at once; no cookie, no other check: the URL's token names the subscription. " +
    "Answered 200, never a redirect; again after that, 200 too.",
  auth: "none",
  params: unsubscribeParams,
  responses: {
    200: {
      description: "Unsubscribed: JSON, or a page saying so to a browser (Accept: text/html).",
      schema: z.object({ unsubscribed: z.literal(true) }),
      example: { unsubscribed: true },
      alternatives: { "text/html": { schema: z.string(), example: EXAMPLE_PAGE } },
    },
    400: errorAnswer("The body is not a form holding List-Unsubscribe=One-Click.", "Send List-Unsubscribe=One-Click as a form"),
    413: errorAnswer("The body is larger than 16 KB.", "Request body is larger than 16 KB"),
    404: errorAnswer("No subscription has this link.", "Unsubscribe link not found"),
  },
});

const capturedMailSchema = z
  .object({
    id: z.number().int().min(1),
    recipient: z.string(),
    subject: z.string(),
    headers: z
      .record(z.string(), z.string())
      .meta({ description: "The message's headers as they would have gone out (List-Unsubscribe among them)." }),
    textBody: z.string(),
    capturedAt: timestamp,
  })
  .meta({ id: "CapturedMail" });

export const listCapturedMail = defineRoute({
  operationId: "listCapturedMail",
  method: "GET",
  path: "/api/admin/mail-outbox",
  tag: TAG,
  summary: "Demo mode's mail outbox: the mail captured instead of sent",
  description: "Newest first, at most 100. Empty outside demo mode (mail goes out through SMTP_URL).",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the mail outbox" },
  responses: {
    200: {
      description: "The captured mail.",
      schema: z.array(capturedMailSchema),
      example: [
        {
          id: 1,
          recipient: "holder@example.com",
          subject: "Confirm your Spooks notifications",
          headers: { "List-Unsubscribe": `<https://spooks.example/api/notifications/email/unsubscribe/${EXAMPLE_TOKEN}>` },
          textBody: "Someone holding the wallet …",
          capturedAt: "2026-11-01T18:00:00.000Z",
        },
      ],
    },
  },
});
