/**
 * POST /api/notifications/email `{ address, email, events, message, signature }`: a wallet's signed consent
 * to email notifications (issue 24, item 6). Only a wallet that holds or has staked an item may ask; each
 * mailbox gets at most one confirmation mail an hour and three a day, and none once it unsubscribed or left one
 * unconfirmed for 7 days, unless a confirmed wallet asks (issue 32, item 1). The request commits and answers;
 * the notification worker sends the confirmation mail outside any transaction, as every other mail (item 2).
 */
import { subscribeEmail } from "../../api/email.ts";
import { now } from "../../domain/clock.ts";
import { forbidden, notFound, unauthorized } from "../../domain/errors.ts";
import { parseEmailSubscribeMessage } from "../../domain/messages.ts";
import { answer, apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { consumeSignature, verifySignedAction } from "../../utils/auth.server.ts";
import { mailEnabled } from "../../utils/mail.server.ts";
import { holdsOrHasStaked } from "../../../db/queries/holdings.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import { inTransaction } from "../../../db/queries/transaction.server.ts";
import type { Route } from "./+types/notifications-email";

const NOT_A_HOLDER = "Only a wallet that holds or has staked a Spooks item can subscribe to email notifications";
const SUPPRESSED = {
  unsubscribed: "This mailbox unsubscribed from Spooks notifications",
  bounced: "Mail to this mailbox bounced",
  unconfirmed: "This mailbox did not confirm a subscription within 7 days",
} as const;

/** A mailbox's limit reached: when it may be asked again. */
class MailboxBusy extends Error {
  constructor(readonly until: Date) {
    super("A confirmation email went to this mailbox recently");
  }
}

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(subscribeEmail, async ({ body, context }) => {
    if (!mailEnabled(context.config.mail)) throw notFound("This site does not send email notifications");
    const parsed = verifySignedAction(body, parseEmailSubscribeMessage, "email subscription");
    if (parsed.address !== body.address || parsed.email !== body.email) {
      throw unauthorized("The signed message does not name this address and this email");
    }
    try {
      const subscription = await inTransaction(context.sql, async (tx) => {
        await consumeSignature(tx, { ...body, action: "email-subscribe" });
        if (!(await holdsOrHasStaked(tx, body.address))) throw forbidden(NOT_A_HOLDER);
        const at = now();
        const standing = await subscriptions.mailboxStanding(tx, body.email, at);
        if (standing.suppressed && !(await subscriptions.isConfirmedWallet(tx, body.address))) {
          throw forbidden(
            `${SUPPRESSED[standing.suppressed]}: it gets no confirmation email unless a wallet whose own subscription is confirmed asks`,
          );
        }
        if (standing.nextAllowedAt) throw new MailboxBusy(standing.nextAllowedAt);
        return subscriptions.subscribeEmail(tx, { address: body.address, email: body.email, events: body.events, at });
      });
      return { address: subscription.address, email: subscription.email, events: subscription.events, confirmed: false };
    } catch (error) {
      if (!(error instanceof MailboxBusy)) throw error;
      const seconds = Math.max(1, Math.ceil((error.until.getTime() - now().getTime()) / 1000));
      return answer(
        subscribeEmail,
        429,
        {
          message: `A confirmation email went to this mailbox recently (at most 1 an hour and 3 a day): try again in ${waitText(seconds)}`,
        },
        { "Retry-After": String(seconds) },
      );
    }
  }),
});

function waitText(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}

export const loader = onlyMethods("POST");
