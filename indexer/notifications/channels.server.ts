/**
 * The delivery channels of this deployment, from its settings: what the notification worker (in the indexer)
 * fans events out to, and what the admin's "send a test" and replay reach. The in-site list needs no channel:
 * GET /api/notifications/{address} reads the outbox itself.
 */
import type { Config } from "../../app/utils/env.server.ts";
import type { Logger } from "../../app/utils/logger.server.ts";
import { createMailer } from "../../app/utils/mail.server.ts";
import type { Queryable } from "../../db/client.server.ts";
import type { NotificationChannel } from "./channel.server.ts";
import { discordChannel } from "./discord-channel.server.ts";
import { emailChannel } from "./email-channel.server.ts";
import { webhookChannel } from "./webhook-channel.server.ts";

export type ChannelSettings = Partial<Pick<Config, "notifications" | "publicUrl" | "webhooks" | "mail" | "port">>;

/**
 * Signed webhooks are always a channel (with no endpoint registered, they have no target); email is one when
 * SMTP_URL and MAIL_FROM are set, or in demo mode, where mail is captured. `sql` is the database the demo's
 * captured mail is written to.
 */
export function notificationChannels(config: ChannelSettings, options: { logger?: Logger; sql?: Queryable } = {}): NotificationChannel[] {
  const channels: NotificationChannel[] = [];
  const discordWebhookUrl = config.notifications?.discordWebhookUrl;
  if (discordWebhookUrl)
    channels.push(discordChannel({ webhookUrl: discordWebhookUrl, publicUrl: config.publicUrl, logger: options.logger }));
  channels.push(webhookChannel({ allowPrivate: config.webhooks?.allowPrivate ?? false, publicUrl: config.publicUrl }));
  const mailer = config.mail && options.sql ? createMailer(config.mail, options.sql) : null;
  if (mailer) {
    channels.push(emailChannel({ mailer, publicUrl: config.publicUrl ?? `http://localhost:${config.port ?? 3000}` }));
  }
  return channels;
}
