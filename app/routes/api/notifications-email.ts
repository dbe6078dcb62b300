/**
 * POST /api/notifications/email `{ address, email, events, message, signature }`: a wallet's signed consent
 * to email notifications; the confirmation email goes out in the same transaction (nothing is kept if it
 * cannot be sent: 503, try again).
 */
import { subscribeEmail } from "../../api/email.ts";
import { confirmationMail, confirmPath, unsubscribePath } from "../../domain/email-notifications.ts";
import { notFound, unauthorized } from "../../domain/errors.ts";
import { parseEmailSubscribeMessage } from "../../domain/messages.ts";
import { answer, apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { consumeSignature, verifySignedAction } from "../../utils/auth.server.ts";
import { siteOf } from "../../utils/csrf.server.ts";
import { createMailer, MailError, mailEnabled } from "../../utils/mail.server.ts";
import * as subscriptions from "../../../db/queries/email-subscriptions.server.ts";
import { inTransaction } from "../../../db/queries/transaction.server.ts";
import type { Route } from "./+types/notifications-email";

class NotSent extends Error {}

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(subscribeEmail, async ({ body, context, request }) => {
    if (!mailEnabled(context.config.mail)) throw notFound("This site does not send email notifications");
    const parsed = verifySignedAction(body, parseEmailSubscribeMessage, "email subscription");
    if (parsed.address !== body.address || parsed.email !== body.email) {
      throw unauthorized("The signed message does not name this address and this email");
    }
    const site = siteOf(request, context);
    try {
      const subscription = await inTransaction(context.sql, async (tx) => {
        await consumeSignature(tx, { ...body, action: "email-subscribe" });
        const made = await subscriptions.subscribeEmail(tx, { address: body.address, email: body.email, events: body.events });
        const mailer = createMailer(context.config.mail, tx);
        if (!mailer) throw notFound("This site does not send email notifications");
        try {
          const mail = confirmationMail({ address: body.address, confirmUrl: new URL(confirmPath(made.confirmToken), site).toString() });
          const unsubscribeUrl = new URL(unsubscribePath(made.subscription.unsubscribeToken), site).toString();
          await mailer.send({ to: body.email, ...mail, unsubscribeUrl });
        } catch (error) {
          if (error instanceof MailError) {
            context.logger.warn({ msg: "confirmation email not sent", code: error.responseCode ?? error.code, err: error.message });
            throw new NotSent(error.message);
          }
          throw error;
        } finally {
          mailer.close();
        }
        return made.subscription;
      });
      return { address: subscription.address, email: subscription.email, events: subscription.events, confirmed: false };
    } catch (error) {
      if (error instanceof NotSent) {
        return answer(
          subscribeEmail,
          503,
          { message: "The confirmation email could not be sent; try again in a few minutes" },
          { "Retry-After": "60" },
        );
      }
      throw error;
    }
  }),
});

export const loader = onlyMethods("POST");
