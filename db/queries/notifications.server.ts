/**
 * Notifications (issue 24; docs/notifications.md): the outbox (migration 0018). Every event is written by
 * `notify` (or, for stakes a transfer ended, by `notifyStakesEndedByTransfer` inside the statement that ends
 * them) in the same transaction as its cause, once per (event, subject, recipient). The worker
 * (indexer/notifications/worker.server.ts) raises the timed events, fans events out into deliveries and sends
 * them; the site reads the events themselves (GET /api/notifications/{address}).
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { now } from "../../app/domain/clock.ts";
import { conflict, notFound } from "../../app/domain/errors.ts";
import {
  ADMIN_EVENTS,
  claimLink,
  CLAIM_REMINDER_MS,
  CLOSED_CATCH_UP_MS,
  CLOSING_SOON_MS,
  isPersonalEvent,
  notificationText,
  STAKE_ENDED_TEXT,
  type NotificationEventName,
} from "../../app/domain/notifications.ts";
import type { Queryable } from "../client.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type NewNotification = {
  event: NotificationEventName;
  /** What it is about, unique per event (a giveaway id, a proposal id, a ledger row id). */
  subject: string | number;
  /** The one address of a personal event; absent for a public one. */
  recipient?: string | null;
  title: string;
  body: string;
  link: string;
  data?: Record<string, unknown>;
};

/** Writes events to the outbox (in the caller's transaction); one already written is left alone. Answers how many were new. */
export async function notify(sql: Queryable, events: readonly NewNotification[], at: Date = now()): Promise<number> {
  let written = 0;
  for (const event of events) {
    const recipient = event.recipient ?? null;
    if (isPersonalEvent(event.event) !== (recipient !== null)) {
      throw new Error(`${event.event} ${isPersonalEvent(event.event) ? "needs" : "takes no"} recipient`);
    }
    const rows = await sql`
      insert into notification_events (event, subject, recipient, occurred_at, title, body, link, data)
      values (${event.event}, ${String(event.subject)}, ${recipient}, ${at}, ${event.title}, ${event.body}, ${event.link},
              ${sql.json((event.data ?? {}) as never)})
      on conflict (event, subject, coalesce(recipient, '')) do nothing
      returning id`;
    written += rows.length;
  }
  return written;
}

/**
 * A CTE body (`notified as (…)`) writing stake.ended for each stake of the statement's CTE `ended` (its id,
 * address, item_id): the same statement that ends the stakes (and writes their audit rows) announces them.
 */
export function notifyStakesEndedByTransfer(sql: Queryable, at: Date) {
  return sql`
    insert into notification_events (event, subject, recipient, occurred_at, title, body, link, data)
    select 'stake.ended', e.id::text, e.address, ${at}::timestamptz, ${STAKE_ENDED_TEXT.title},
           i.name || ${STAKE_ENDED_TEXT.bodyAfterItem}, ${STAKE_ENDED_TEXT.link},
           jsonb_build_object('stakeId', e.id, 'item', i.name, 'inscriptionId', i.inscription_id)
    from ended e join items i on i.id = e.item_id
    on conflict (event, subject, coalesce(recipient, '')) do nothing`;
}

// Events of the giveaways, proposals and points -------------------------------------------------------

export function giveawayOpened(g: { id: number; title: string; pointsCost: number; endDate: Date }): NewNotification {
  return {
    event: "giveaway.opened",
    subject: g.id,
    ...notificationText.giveawayOpened(g),
    data: { giveawayId: g.id, title: g.title, pointsCost: g.pointsCost, endDate: g.endDate.toISOString() },
  };
}

/** giveaway.drawn to everyone and giveaway.won to each winner. */
export function giveawayDrawn(g: { id: number; title: string; winners: readonly string[] }): NewNotification[] {
  const data = { giveawayId: g.id, title: g.title, winners: [...g.winners], verifyLink: `/giveaways/${g.id}/verify` };
  return [
    { event: "giveaway.drawn", subject: g.id, ...notificationText.giveawayDrawn(g), data },
    ...[...new Set(g.winners)].map((address) => ({
      event: "giveaway.won" as const,
      subject: g.id,
      recipient: address,
      ...notificationText.giveawayWon(g),
      data: { giveawayId: g.id, title: g.title, claimLink: claimLink(g.id), verifyLink: `/giveaways/${g.id}/verify` },
    })),
  ];
}

export function proposalOpened(p: { id: number; title: string; startDate: Date; endDate: Date }): NewNotification {
  return {
    event: "proposal.opened",
    subject: p.id,
    ...notificationText.proposalOpened(p),
    data: { proposalId: p.id, title: p.title, startDate: p.startDate.toISOString(), endDate: p.endDate.toISOString() },
  };
}

/** points.adjusted for the ledger row `ledgerId` the admin wrote. */
export function pointsAdjusted(a: {
  ledgerId: number;
  address: string;
  points: number;
  description: string | null;
  balance: number;
}): NewNotification {
  return {
    event: "points.adjusted",
    subject: a.ledgerId,
    recipient: a.address,
    ...notificationText.pointsAdjusted(a),
    data: { points: a.points, description: a.description, balance: a.balance },
  };
}

// The timed events ------------------------------------------------------------------------------------

/**
 * Writes the events whose time has come by `at`: `giveaway.closing_soon` and `proposal.closing_soon` (24 h
 * before the end, while still open), `proposal.opened` for a proposal created before its start, and
 * `proposal.closed` (with the result) once it ended (at most CLOSED_CATCH_UP_MS ago), and the reminder of a win not
 * claimed a day after its draw. Once each, by the
 * outbox's unique key; safe to run from any number of passes at once. Answers how many were new.
 */
export async function raiseTimedEvents(sql: Queryable, at: Date = now()): Promise<number> {
  const soon = new Date(at.getTime() + CLOSING_SOON_MS);
  const events: NewNotification[] = [];
  const giveaways = await sql<{ id: number; title: string; endDate: Date }[]>`
    select g.id, g.title, g.end_date from giveaways g
    where g.active and g.drawn_at is null and g.draw_block_height is null and g.end_date > ${at} and g.end_date <= ${soon}
      and not exists (select 1 from notification_events n where n.event = 'giveaway.closing_soon' and n.subject = g.id::text)`;
  for (const g of giveaways) {
    events.push({
      event: "giveaway.closing_soon",
      subject: g.id,
      ...notificationText.giveawayClosingSoon(g),
      data: { giveawayId: g.id, title: g.title, endDate: g.endDate.toISOString() },
    });
  }
  const opened = await sql<{ id: number; title: string; startDate: Date; endDate: Date }[]>`
    select p.id, p.title, p.start_date, p.end_date from proposals p
    where p.start_date > p.created_at and p.start_date <= ${at} and p.end_date > ${at}
      and not exists (select 1 from notification_events n where n.event = 'proposal.opened' and n.subject = p.id::text)`;
  events.push(...opened.map(proposalOpened));
  const closingSoon = await sql<{ id: number; title: string; endDate: Date }[]>`
    select p.id, p.title, p.end_date from proposals p
    where p.start_date <= ${at} and p.end_date > ${at} and p.end_date <= ${soon}
      and not exists (select 1 from notification_events n where n.event = 'proposal.closing_soon' and n.subject = p.id::text)`;
  for (const p of closingSoon) {
    events.push({
      event: "proposal.closing_soon",
      subject: p.id,
      ...notificationText.proposalClosingSoon(p),
      data: { proposalId: p.id, title: p.title, endDate: p.endDate.toISOString() },
    });
  }
  // A proposal is completed once `at` is past its end (app/domain/governance.ts proposalStatus).
  const closed = await sql<{ id: number; title: string; endDate: Date }[]>`
    select p.id, p.title, p.end_date from proposals p
    where p.end_date < ${at} and p.end_date >= ${new Date(at.getTime() - CLOSED_CATCH_UP_MS)}
      and not exists (select 1 from notification_events n where n.event = 'proposal.closed' and n.subject = p.id::text)`;
  for (const p of closed) {
    const options = await sql<{ text: string; votes: number }[]>`
      select o.option_text as text,
             coalesce((select sum(v.weight) from votes v where v.proposal_id = o.proposal_id and v.option_id = o.id), 0)::int8 as votes
      from proposal_options o where o.proposal_id = ${p.id} order by o.position`;
    events.push({
      event: "proposal.closed",
      subject: p.id,
      ...notificationText.proposalClosed({ ...p, options }),
      data: { proposalId: p.id, title: p.title, endDate: p.endDate.toISOString(), results: options },
    });
  }
  events.push(...(await unclaimedWinReminders(sql, at)));
  return events.length ? notify(sql, events, at) : 0;
}

/**
 * A winner who has not claimed a day after the draw is reminded once (issue 33, item 2): `giveaway.won` again,
 * subject `{id}:reminder`, so every channel that carries wins carries it (and email's daily limit lets it through).
 * Draws older than CLOSED_CATCH_UP_MS are left alone (an upgrade never reminds of old wins).
 */
async function unclaimedWinReminders(sql: Queryable, at: Date): Promise<NewNotification[]> {
  const due = new Date(at.getTime() - CLAIM_REMINDER_MS);
  const rows = await sql<{ id: number; title: string; address: string }[]>`
    select g.id, g.title, w.address
    from giveaways g
    join lateral (
      select address from giveaway_winners where giveaway_id = g.id
      union select g.winner_address where g.winner_address is not null
    ) w on true
    where g.drawn_at <= ${due} and g.drawn_at >= ${new Date(due.getTime() - CLOSED_CATCH_UP_MS)}
      and not exists (select 1 from giveaway_claims c where c.giveaway_id = g.id and c.address = w.address)
      and not exists (
        select 1 from notification_events n
        where n.event = 'giveaway.won' and n.subject = g.id || ':reminder' and n.recipient = w.address)`;
  return rows.map((row) => ({
    event: "giveaway.won" as const,
    subject: `${row.id}:reminder`,
    recipient: row.address,
    ...notificationText.claimReminder(row),
    data: { giveawayId: row.id, title: row.title, reminder: true, claimLink: claimLink(row.id), verifyLink: `/giveaways/${row.id}/verify` },
  }));
}

// What the site shows -------------------------------------------------------------------------------

export type NotificationEntry = { id: number; event: NotificationEventName; at: Date; title: string; body: string; link: string };

export const NOTIFICATIONS_DEFAULT_LIMIT = 20;
export const NOTIFICATIONS_MAX_LIMIT = 100;

/** The public events (not the admin team's) and `address`'s personal ones, newest first, older than `cursor` (an event id). */
export async function notificationsFor(
  sql: Queryable,
  address: string,
  { limit = NOTIFICATIONS_DEFAULT_LIMIT, cursor = null }: { limit?: number; cursor?: number | null } = {},
): Promise<{ entries: NotificationEntry[]; nextCursor: string | null }> {
  const before = cursor ?? Number.MAX_SAFE_INTEGER;
  // Two index scans (notification_events_newest, notification_events_for_recipient) merged.
  const rows = await sql<NotificationEntry[]>`
    select id, event, at, title, body, link from (
      (select id, event, occurred_at as at, title, body, link from notification_events
       where recipient is null and id < ${before} and event <> all(${[...ADMIN_EVENTS]}::text[]) order by id desc limit ${limit + 1})
      union all
      (select id, event, occurred_at as at, title, body, link from notification_events
       where recipient = ${address} and id < ${before} order by id desc limit ${limit + 1})
    ) both_kinds order by id desc limit ${limit + 1}`;
  const entries = rows.slice(0, limit).map((row) => ({ ...row, id: Number(row.id) }));
  return { entries, nextCursor: rows.length > limit ? String(entries[entries.length - 1].id) : null };
}

// Deliveries, as the admin sees them -------------------------------------------------------------------

export const DELIVERY_STATES = ["pending", "sending", "delivered", "retrying", "failed", "skipped"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
export type ChannelName = "discord" | "webhook" | "email";

export type DeliveryRow = {
  id: number;
  eventId: number;
  event: NotificationEventName;
  subject: string;
  recipient: string | null;
  title: string;
  channel: ChannelName;
  target: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
};

export type DeliveryFilter = { channel?: ChannelName; state?: DeliveryState; failed?: boolean; cursor?: number; limit?: number };

export async function listDeliveries(
  sql: Queryable,
  { channel, state, failed, cursor, limit = 50 }: DeliveryFilter = {},
): Promise<{ entries: DeliveryRow[]; nextCursor: number | null }> {
  const rows = await sql<DeliveryRow[]>`
    select d.id, d.event_id, e.event, e.subject, e.recipient, e.title, d.channel, d.target, d.state, d.attempts,
           d.next_attempt_at, d.last_status_code, d.last_error, d.delivered_at, d.created_at
    from notification_deliveries d join notification_events e on e.id = d.event_id
    where true
      ${channel ? sql`and d.channel = ${channel}` : sql``}
      ${state ? sql`and d.state = ${state}` : sql``}
      ${failed ? sql`and (d.state = 'failed' or (d.state = 'retrying' and d.last_error is not null))` : sql``}
      ${cursor ? sql`and d.id < ${cursor}` : sql``}
    order by d.id desc limit ${limit + 1}`;
  const entries = rows.slice(0, limit).map((row) => ({ ...row, id: Number(row.id), eventId: Number(row.eventId) }));
  return { entries, nextCursor: rows.length > limit ? entries[entries.length - 1].id : null };
}

/** How many targets the webhook and email channels can send to now: active endpoints, confirmed subscriptions. */
export async function channelTargetCounts(sql: Queryable): Promise<{ webhook: number; email: number }> {
  const [row] = await sql<{ webhook: number; email: number }[]>`
    select (select count(*)::int from webhook_endpoints where active) as webhook,
           (select count(*)::int from email_subscriptions where confirmed_at is not null and unsubscribed_at is null) as email`;
  return row;
}

/** Counts per channel and state (the tab's summary). */
export async function deliveryCounts(sql: Queryable): Promise<{ channel: ChannelName; state: DeliveryState; count: number }[]> {
  return sql<{ channel: ChannelName; state: DeliveryState; count: number }[]>`
    select channel, state, count(*)::int as count from notification_deliveries group by channel, state order by channel, state`;
}

/**
 * Sends a delivery again: back to pending, due now (its attempts so far are kept). Not while it is being
 * sent (409). Answers the delivery as it is now.
 */
export async function replayDelivery(sql: Queryable, id: number, at: Date = now()): Promise<DeliveryRow> {
  return inTransaction(sql, async (tx) => {
    const [row] = await tx<{ state: DeliveryState }[]>`select state from notification_deliveries where id = ${id} for update`;
    if (!row) throw notFound("Delivery not found");
    if (row.state === "sending") throw conflict("This delivery is being sent right now; replay it once it is done");
    await tx`
      update notification_deliveries set state = 'pending', next_attempt_at = ${at}, claimed_until = null, delivered_at = null
      where id = ${id}`;
    const [delivery] = (await listDeliveries(tx, { cursor: id + 1, limit: 1 })).entries;
    return delivery;
  });
}

// The channels' own state (migration 0019) -------------------------------------------------------------

export type ChannelState = { channel: ChannelName; destinationSha256: string; disabledAt: Date | null; disabledReason: string | null };

export async function channelState(sql: Queryable, channel: ChannelName): Promise<ChannelState | null> {
  const [row] = await sql<ChannelState[]>`
    select channel, destination_sha256, disabled_at, disabled_reason from notification_channel_state where channel = ${channel}`;
  return row ?? null;
}

export async function setChannelDisabled(
  sql: Queryable,
  channel: ChannelName,
  destinationSha256: string,
  reason: string | null,
  at: Date = now(),
): Promise<void> {
  await sql`
    insert into notification_channel_state (channel, destination_sha256, disabled_at, disabled_reason, updated_at)
    values (${channel}, ${destinationSha256}, ${reason === null ? null : at}, ${reason === null ? null : withoutControlCharacters(reason)}, ${at})
    on conflict (channel) do update set destination_sha256 = excluded.destination_sha256, disabled_at = excluded.disabled_at,
      disabled_reason = excluded.disabled_reason, updated_at = excluded.updated_at`;
}
