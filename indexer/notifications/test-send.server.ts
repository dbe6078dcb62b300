/**
 * The admin's "send a test" (the Notifications tab, `spooks-admin notifications test CHANNEL`): one test message
 * to each target of a channel, at once, outside the outbox (nothing is recorded as a delivery); the answers are
 * shown as they came.
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { now } from "../../app/domain/clock.ts";
import { conflict } from "../../app/domain/errors.ts";
import { TEST_NOTIFICATION, type NotificationEventName } from "../../app/domain/notifications.ts";
import type { Queryable } from "../../db/client.server.ts";
import type { NotificationChannel, OutboxEvent } from "./channel.server.ts";

export type TestSendResult = { target: string; outcome: "delivered" | "retry" | "failed"; statusCode: number | null; error: string | null };

export const NOTIFICATION_CHANNELS = ["discord", "webhook", "email"] as const;

const SETTING: Record<NotificationChannel["name"], string> = {
  discord: "set DISCORD_WEBHOOK_URL",
  webhook: "add a webhook endpoint",
  email: "set SMTP_URL and MAIL_FROM",
};

export async function sendTestNotification(
  sql: Queryable,
  channels: readonly NotificationChannel[],
  name: NotificationChannel["name"],
): Promise<TestSendResult[]> {
  const channel = channels.find((candidate) => candidate.name === name);
  if (!channel) throw conflict(`The ${name} channel is not configured (${SETTING[name]})`);
  const at = now();
  const event: OutboxEvent = {
    id: 0,
    event: "notifications.test" as NotificationEventName,
    subject: `test-${at.getTime()}`,
    recipient: null,
    occurredAt: at,
    ...TEST_NOTIFICATION,
    data: { test: true },
    test: true,
  };
  const targets = await channel.targets(sql, event);
  if (targets.length === 0) throw conflict(`The ${name} channel has no target to send a test to (${SETTING[name]})`);
  const results: TestSendResult[] = [];
  for (const target of targets) {
    const result = await channel.deliver(sql, event, { id: 0, target, attempts: 0, createdAt: at });
    results.push({
      target,
      outcome: result.outcome,
      statusCode: result.statusCode ?? null,
      error: result.outcome === "delivered" ? null : withoutControlCharacters(result.error),
    });
  }
  return results;
}
