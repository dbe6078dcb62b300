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

export type ChannelSettings = Partial<Pick<Config, "notifications" | "publicUrl" | "webhooks" | "mail" | "port" | "host" | "demo">>;

/**
 * Where the site is reached, for links leaving it (emails, channel posts): PUBLIC_URL, or the origin a demo is served
 * on (HOST and PORT; issue 33, item 8: not a guess at localhost when the demo listens on 127.0.0.1).
 */
export function siteOrigin(config: ChannelSettings): string {
  if (config.publicUrl) return config.publicUrl;
  const host = !config.host || config.host === "0.0.0.0" ? "localhost" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port ?? 3000}`;
}

/**
 * Signed webhooks are always a channel (with no endpoint registered, they have no target); email is one when
 * SMTP_URL and MAIL_FROM are set, or in demo mode, where mail is captured. `sql` is the database the demo's
 * captured mail is written to.
 */
export function notificationChannels(config: ChannelSettings, options: { logger?: Logger; sql?: Queryable } = {}): NotificationChannel[] {
  const channels: NotificationChannel[] = [];
  const discordWebhookUrl = config.notifications?.discordWebhookUrl;
  if (discordWebhookUrl)
    channels.push(
      discordChannel({
        webhookUrl: discordWebhookUrl,
        // Links only to a site known to be reachable: PUBLIC_URL, or a demo's own origin.
        publicUrl: config.publicUrl ?? (config.demo ? siteOrigin(config) : undefined),
        logger: options.logger,
      }),
    );
  channels.push(webhookChannel({ allowPrivate: config.webhooks?.allowPrivate ?? false, publicUrl: config.publicUrl }));
  const mailer = config.mail && options.sql ? createMailer(config.mail, options.sql) : null;
  if (mailer) {
    channels.push(emailChannel({ mailer, publicUrl: siteOrigin(config), testRecipient: config.mail?.from }));
  }
  return channels;
}
