/**
 * Email subscriptions (migration 0020; issue 24, item 6): one per wallet, made by a signed consent,
 * confirmed by opening the emailed link, ended by one-click unsubscribe or three hard bounces. Deliveries of
 * the 'email' channel name a subscription's id as their target.
 */
import { createHash, randomBytes } from "node:crypto";
import { now } from "../../app/domain/clock.ts";
import { PERSONAL_EVENTS, type NotificationEventName } from "../../app/domain/notifications.ts";
import type { Queryable } from "../client.server.ts";

export const HARD_BOUNCES_UNSUBSCRIBE = 3;

export type EmailSubscription = {
  id: number;
  address: string;
  email: string;
  events: NotificationEventName[];
  confirmedAt: Date | null;
  unsubscribeToken: string;
  unsubscribedAt: Date | null;
  unsubscribeReason: "one-click" | "bounced" | null;
  hardBounces: number;
};

const token = () => randomBytes(32).toString("base64url");
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The wallet's subscription, new: any earlier one (another mailbox, or the same) is replaced, so a change of
 * address needs this new consent and a new confirmation. Answers the confirmation link's token (kept only hashed).
 */
export async function subscribeEmail(
  sql: Queryable,
  input: { address: string; email: string; events: NotificationEventName[] },
): Promise<{ subscription: EmailSubscription; confirmToken: string }> {
  const confirmToken = token();
  await sql`delete from email_subscriptions where address = ${input.address}`;
  const [subscription] = await sql<EmailSubscription[]>`
    insert into email_subscriptions (address, email, events, confirm_token_hash, unsubscribe_token, created_at)
    values (${input.address}, ${input.email}, ${input.events}, ${hashOf(confirmToken)}, ${token()}, ${now()})
    returning id, address, email, events, confirmed_at, unsubscribe_token, unsubscribed_at, unsubscribe_reason, hard_bounces`;
  return { subscription, confirmToken };
}

/** Opens the confirmation link: the subscription is confirmed (once). Null for a token of no subscription. */
export async function confirmEmail(sql: Queryable, confirmToken: string): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`
    update email_subscriptions set confirmed_at = coalesce(confirmed_at, ${now()})
    where confirm_token_hash = ${hashOf(confirmToken)}
    returning id, address, email, events, confirmed_at, unsubscribe_token, unsubscribed_at, unsubscribe_reason, hard_bounces`;
  return row ?? null;
}

export async function findSubscriptionByConfirmToken(sql: Queryable, confirmToken: string): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`
    select id, address, email, events, confirmed_at, unsubscribe_token, unsubscribed_at, unsubscribe_reason, hard_bounces
    from email_subscriptions where confirm_token_hash = ${hashOf(confirmToken)}`;
  return row ?? null;
}

export async function findSubscriptionByUnsubscribeToken(sql: Queryable, unsubscribeToken: string): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`
    select id, address, email, events, confirmed_at, unsubscribe_token, unsubscribed_at, unsubscribe_reason, hard_bounces
    from email_subscriptions where unsubscribe_token = ${unsubscribeToken}`;
  return row ?? null;
}

/** Stops all mail to the subscription at once: its deliveries not yet made are skipped. False for an unknown token. */
export async function unsubscribeEmail(sql: Queryable, unsubscribeToken: string): Promise<boolean> {
  const [row] = await sql<{ id: number }[]>`
    update email_subscriptions
    set unsubscribed_at = coalesce(unsubscribed_at, ${now()}), unsubscribe_reason = coalesce(unsubscribe_reason, 'one-click')
    where unsubscribe_token = ${unsubscribeToken}
    returning id`;
  if (!row) return false;
  await skipPending(sql, row.id, "Unsubscribed");
  return true;
}

async function skipPending(sql: Queryable, id: number, reason: string): Promise<void> {
  await sql`
    update notification_deliveries set state = 'skipped', last_error = ${reason}, claimed_until = null
    where channel = 'email' and target = ${String(id)} and state in ('pending', 'retrying')`;
}

export async function findSubscription(sql: Queryable, id: number): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`
    select id, address, email, events, confirmed_at, unsubscribe_token, unsubscribed_at, unsubscribe_reason, hard_bounces
    from email_subscriptions where id = ${id}`;
  return row ?? null;
}

/** The confirmed, subscribed mailboxes an event goes to: its recipient's for a personal event, every one that asked for a public one. */
export async function emailTargets(sql: Queryable, event: { event: NotificationEventName; recipient: string | null }): Promise<string[]> {
  const rows = await sql<{ id: number }[]>`
    select id from email_subscriptions
    where confirmed_at is not null and unsubscribed_at is null and ${event.event} = any(events)
      and (${event.recipient}::text is null or address = ${event.recipient})
    order by id`;
  return rows.map((row) => String(row.id));
}

/** A hard bounce (SMTP 5xx); the third unsubscribes the address. Answers the count. */
export async function recordHardBounce(sql: Queryable, id: number): Promise<number> {
  const [row] = await sql<{ hardBounces: number }[]>`
    update email_subscriptions set hard_bounces = hard_bounces + 1 where id = ${id} returning hard_bounces`;
  const count = row?.hardBounces ?? 0;
  if (count >= HARD_BOUNCES_UNSUBSCRIBE) {
    await sql`
      update email_subscriptions set unsubscribed_at = ${now()}, unsubscribe_reason = 'bounced'
      where id = ${id} and unsubscribed_at is null`;
    await skipPending(sql, id, `Unsubscribed after ${HARD_BOUNCES_UNSUBSCRIBE} hard bounces`);
  }
  return count;
}

/** A message was accepted: bounces counted so far were not the mailbox's end. */
export async function clearBounces(sql: Queryable, id: number): Promise<void> {
  await sql`update email_subscriptions set hard_bounces = 0 where id = ${id} and hard_bounces > 0`;
}

/** When the subscription's personal emails of the last 24 hours were delivered, oldest first. */
export async function personalEmailsSince(sql: Queryable, id: number, since: Date): Promise<Date[]> {
  const rows = await sql<{ deliveredAt: Date }[]>`
    select d.delivered_at from notification_deliveries d join notification_events e on e.id = d.event_id
    where d.channel = 'email' and d.target = ${String(id)} and d.state = 'delivered' and d.delivered_at > ${since}
      and e.event = any(${[...PERSONAL_EVENTS]})
    order by d.delivered_at`;
  return rows.map((row) => row.deliveredAt);
}

/** The wallet's subscription as its holder may see it without proving anything: the mailbox masked. */
export async function subscriptionStatus(
  sql: Queryable,
  address: string,
): Promise<{ subscribed: boolean; confirmed: boolean; email: string | null; events: NotificationEventName[] }> {
  const [row] = await sql<EmailSubscription[]>`
    select email, events, confirmed_at, unsubscribed_at from email_subscriptions where address = ${address}`;
  if (!row || row.unsubscribedAt) return { subscribed: false, confirmed: false, email: null, events: [] };
  return { subscribed: true, confirmed: row.confirmedAt !== null, email: maskEmail(row.email), events: row.events };
}

/** holder@example.com → h•••r@example.com: enough for its owner to recognise, not for anyone to read. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const masked = local.length <= 2 ? `${local[0] ?? ""}•••` : `${local[0]}•••${local[local.length - 1]}`;
  return `${masked}${email.slice(at)}`;
}

export type CapturedMail = {
  id: number;
  recipient: string;
  subject: string;
  headers: Record<string, string>;
  textBody: string;
  capturedAt: Date;
};

/** Demo mode's captured mail, newest first. */
export async function listCapturedMail(sql: Queryable, limit: number): Promise<CapturedMail[]> {
  return sql<CapturedMail[]>`
    select id, recipient, subject, headers, text_body, captured_at from captured_mail order by id desc limit ${limit}`;
}
