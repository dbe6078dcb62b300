/**
 * What the notification worker (indexer/notifications/worker.server.ts) asks of a delivery channel: the
 * targets an event goes to, and one delivery attempt. The worker owns the outbox (migration 0018): it claims
 * due deliveries, calls `deliver`, and records the result; the channel owns its own endpoints and
 * subscriptions, and decides its retry schedule and when a target is disabled.
 */
import type { NotificationEventName } from "../../app/domain/notifications.ts";
import type { Queryable, Sql } from "../../db/client.server.ts";

/** One row of notification_events, as the channels see it. */
export interface OutboxEvent {
  id: number;
  event: NotificationEventName;
  subject: string;
  /** The address of a personal event; null when it goes to everyone. */
  recipient: string | null;
  occurredAt: Date;
  title: string;
  body: string;
  /** A path of the site (`/rewards`); channels leaving the site make it absolute with PUBLIC_URL. */
  link: string;
  data: Record<string, unknown>;
  /**
   * Set on the test the admin sends ("send a test", `spooks-admin notifications test CHANNEL`): not an outbox row
   * (id 0), `event` is then "notifications.test"; a channel sends it even when it disabled its target, and a
   * success may enable it again.
   */
  test?: boolean;
}

/** One row of notification_deliveries, as the channel sees it on an attempt. */
export interface DeliveryAttempt {
  id: number;
  target: string;
  /** Attempts made before this one (0 on the first). */
  attempts: number;
  createdAt: Date;
  /**
   * The claimed batch the attempt belongs to (the worker's; absent on a single send): what a channel reads for a
   * target may be kept under it for the batch's other deliveries, and is read afresh by the next batch.
   */
  batch?: object;
}

export type DeliveryResult =
  | { outcome: "delivered"; statusCode?: number }
  /** Try again at `retryAt` (the channel's schedule, or the receiver's Retry-After). */
  | { outcome: "retry"; retryAt: Date; statusCode?: number; error: string }
  /** Give up on this delivery for good (the channel has disabled its target, or its attempts are spent). */
  | { outcome: "failed"; statusCode?: number; error: string };

export interface NotificationChannel {
  name: "discord" | "webhook" | "email";
  /**
   * The targets this event goes to now ('' for a channel with one target), called once per event inside the
   * worker's transaction that makes its deliveries. An empty list: the event does not go out on this channel.
   */
  targets(sql: Queryable, event: OutboxEvent): Promise<string[]>;
  /**
   * What `targets` depends on, when it is less than the whole event: events with the same key go to the same
   * targets, so a fan-out batch asks once per key. Without it, `targets` is asked for every event.
   */
  targetsKey?(event: OutboxEvent): string;
  /**
   * The receiver knows a repeated attempt by its id (webhook-id, Message-ID) and acts on it once: the worker may then
   * record a result while it sends the target's next delivery, so a crash may repeat two deliveries, not one.
   */
  repeatsAreIdempotent?: boolean;
  /** One attempt. Never throws for what the receiver answered: that is a result. */
  deliver(sql: Queryable, event: OutboxEvent, delivery: DeliveryAttempt): Promise<DeliveryResult>;
  /**
   * Mail the channel owes outside the outbox, sent on each pass of the worker, outside any transaction (the email
   * channel: the confirmation mails that subscriptions asked for). Answers how many were sent.
   */
  sendQueued?(sql: Sql): Promise<number>;
}
