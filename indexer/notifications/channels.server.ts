/**
 * The delivery channels of this deployment, from its settings: what the notification worker (in the indexer)
 * fans events out to, and what the admin's "send a test" and replay reach. The in-site list needs no channel:
 * GET /api/notifications/{address} reads the outbox itself.
 */
import type { Config } from "../../app/utils/env.server.ts";
import type { Logger } from "../../app/utils/logger.server.ts";
import type { NotificationChannel } from "./channel.server.ts";
import { discordChannel } from "./discord-channel.server.ts";

export type ChannelSettings = Partial<Pick<Config, "notifications" | "publicUrl">>;

export function notificationChannels(config: ChannelSettings, logger?: Logger): NotificationChannel[] {
  const channels: NotificationChannel[] = [];
  const discordWebhookUrl = config.notifications?.discordWebhookUrl;
  if (discordWebhookUrl) channels.push(discordChannel({ webhookUrl: discordWebhookUrl, publicUrl: config.publicUrl, logger }));
  // Signed webhooks (item 5) and email (item 6) join here:
  //   channels.push(webhookChannel({ ... }));  // indexer/notifications/webhook-channel.server.ts
  //   if (config.<smtp settings>) channels.push(emailChannel({ ... }));  // indexer/notifications/email-channel.server.ts
  return channels;
}
