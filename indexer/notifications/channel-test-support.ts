/**
 * Test-only: outbox rows made by hand and a one-attempt driver that records a channel's result as the
 * notification worker does (indexer/notifications/worker.server.ts owns the real loop), so a channel is
 * tested through its contract alone.
 */
import type { NotificationEventName } from "../../app/domain/notifications.ts";
import type { Queryable } from "../../db/client.server.ts";
import type { DeliveryResult, NotificationChannel, OutboxEvent } from "./channel.server.ts";

let subjects = 0;

export async function insertEvent(
  sql: Queryable,
  fields: Partial<Omit<OutboxEvent, "id">> & { event: NotificationEventName },
): Promise<OutboxEvent> {
  subjects += 1;
  const event = {
    subject: `${process.pid}-${subjects}-${Math.random().toString(36).slice(2, 8)}`,
    recipient: null,
    occurredAt: new Date("2026-11-01T18:00:00.000Z"),
    title: "Giveaway opened: Spooky pack",
    body: "Enter with your points before Nov 8.",
    link: "/rewards",
    data: {},
    ...fields,
  };
  const [row] = await sql<{ id: number }[]>`
    insert into notification_events (event, subject, recipient, occurred_at, title, body, link, data)
    values (${event.event}, ${event.subject}, ${event.recipient}, ${event.occurredAt}, ${event.title}, ${event.body}, ${event.link},
            ${sql.json(event.data as never)})
    returning id`;
  return { id: row.id, ...event };
}

/** The deliveries the worker would make for `event` on `channel` (its targets now). */
export async function fanOut(sql: Queryable, channel: NotificationChannel, event: OutboxEvent, at = new Date()): Promise<number[]> {
  const ids: number[] = [];
  for (const target of await channel.targets(sql, event)) {
    const [row] = await sql<{ id: number }[]>`
      insert into notification_deliveries (event_id, channel, target, next_attempt_at, created_at)
      values (${event.id}, ${channel.name}, ${target}, ${at}, ${at})
      returning id`;
    ids.push(row.id);
  }
  return ids;
}

export type DeliveryRow = {
  id: number;
  eventId: number;
  target: string;
  state: string;
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
};

export async function deliveryRow(sql: Queryable, id: number): Promise<DeliveryRow> {
  const [row] = await sql<DeliveryRow[]>`
    select id, event_id, target, state, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at
    from notification_deliveries where id = ${id}`;
  return row;
}

/** One attempt of delivery `id`, recorded as the worker records it; answers the channel's result. */
export async function attempt(
  sql: Queryable,
  channel: NotificationChannel,
  event: OutboxEvent,
  id: number,
  at = new Date(),
): Promise<DeliveryResult> {
  const row = await deliveryRow(sql, id);
  const result = await channel.deliver(sql, event, { id, target: row.target, attempts: row.attempts, createdAt: row.createdAt });
  const state = result.outcome === "retry" ? "retrying" : result.outcome;
  await sql`
    update notification_deliveries
    set state = ${state}, attempts = attempts + 1,
        next_attempt_at = ${result.outcome === "retry" ? result.retryAt : at},
        last_status_code = ${result.statusCode ?? null},
        last_error = ${result.outcome === "delivered" ? null : result.error},
        delivered_at = ${result.outcome === "delivered" ? at : null}
    where id = ${id}`;
  return result;
}
