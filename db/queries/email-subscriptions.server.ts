/**
 * Email subscriptions (migrations 0020, 0025; issues 24 item 6, 32 items 1, 2, 6): one per wallet, made by a
 * signed consent, confirmed by opening the emailed link, ended by one-click unsubscribe or three hard bounces.
 * Deliveries of the 'email' channel name a subscription's id as their target. The links' tokens are kept hashed
 * (email_link_tokens), made when a mail is sent; the confirmation mails asked for wait in email_confirmations for
 * the notification worker, and each mailbox's counts and suppression are read there and in email_mailboxes.
 */
import { createHash, randomBytes } from "node:crypto";
import { now } from "../../app/domain/clock.ts";
import {
  CONFIRMATIONS_PER_DAY,
  CONFIRMATIONS_PER_HOUR,
  normalizedMailbox,
  UNCONFIRMED_SUPPRESSES_AFTER_MS,
} from "../../app/domain/email-notifications.ts";
import { PERSONAL_EVENTS, type NotificationEventName } from "../../app/domain/notifications.ts";
import type { Queryable } from "../client.server.ts";

export const HARD_BOUNCES_UNSUBSCRIBE = 3;

export type EmailSubscription = {
  id: number;
  address: string;
  email: string;
  events: NotificationEventName[];
  confirmedAt: Date | null;
  unsubscribedAt: Date | null;
  unsubscribeReason: "one-click" | "bounced" | null;
  hardBounces: number;
};

const COLUMNS = "id, address, email, events, confirmed_at, unsubscribed_at, unsubscribe_reason, hard_bounces";
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const newToken = () => randomBytes(32).toString("base64url");
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The wallet's subscription, new: any earlier one (another mailbox, or the same) is replaced, so a change of
 * address needs this new consent and a new confirmation; its confirmation mail is queued for the worker.
 */
export async function subscribeEmail(
  sql: Queryable,
  input: { address: string; email: string; events: NotificationEventName[]; at?: Date },
): Promise<EmailSubscription> {
  const at = input.at ?? now();
  await sql`delete from email_subscriptions where address = ${input.address}`;
  const [subscription] = await sql<EmailSubscription[]>`
    insert into email_subscriptions (address, email, events, created_at)
    values (${input.address}, ${input.email}, ${input.events}, ${at})
    returning ${sql.unsafe(COLUMNS)}`;
  await sql`
    insert into email_confirmations (subscription_id, address, mailbox, requested_at, next_attempt_at)
    values (${subscription.id}, ${input.address}, ${normalizedMailbox(input.email)}, ${at}, ${at})`;
  return subscription;
}

/** A new link token of the subscription (its hash kept): put it in the mail being sent. */
export async function issueLinkToken(
  sql: Queryable,
  subscriptionId: number,
  kind: "confirm" | "unsubscribe",
  at: Date = now(),
): Promise<string> {
  const token = newToken();
  await sql`
    insert into email_link_tokens (token_sha256, subscription_id, kind, created_at)
    values (${hashOf(token)}, ${subscriptionId}, ${kind}, ${at})`;
  return token;
}

/** Tokens of a mail that did not go out: nobody has them. */
export async function forgetLinkTokens(sql: Queryable, tokens: readonly string[]): Promise<void> {
  await sql`delete from email_link_tokens where token_sha256 = any(${tokens.map(hashOf)}::text[])`;
}

async function subscriptionOfToken(sql: Queryable, token: string, kind: "confirm" | "unsubscribe"): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`
    select ${sql.unsafe(
      COLUMNS.split(", ")
        .map((column) => `s.${column}`)
        .join(", "),
    )}
    from email_link_tokens t join email_subscriptions s on s.id = t.subscription_id
    where t.token_sha256 = ${hashOf(token)} and t.kind = ${kind}`;
  return row ?? null;
}

/** Opens the confirmation link: the subscription is confirmed (once), and its mailbox with it. Null for a token of no subscription. */
export async function confirmEmail(sql: Queryable, confirmToken: string): Promise<EmailSubscription | null> {
  const found = await subscriptionOfToken(sql, confirmToken, "confirm");
  if (!found) return null;
  const at = now();
  const [row] = await sql<EmailSubscription[]>`
    update email_subscriptions set confirmed_at = coalesce(confirmed_at, ${at}) where id = ${found.id}
    returning ${sql.unsafe(COLUMNS)}`;
  // The mailbox's owner opened our link: it has confirmed, and whatever suppressed it is lifted.
  await sql`
    insert into email_mailboxes (mailbox, confirmed_at) values (${normalizedMailbox(row.email)}, ${at})
    on conflict (mailbox) do update set confirmed_at = excluded.confirmed_at, suppressed_at = null, suppressed_reason = null`;
  return row;
}

export function findSubscriptionByConfirmToken(sql: Queryable, confirmToken: string): Promise<EmailSubscription | null> {
  return subscriptionOfToken(sql, confirmToken, "confirm");
}

export function findSubscriptionByUnsubscribeToken(sql: Queryable, unsubscribeToken: string): Promise<EmailSubscription | null> {
  return subscriptionOfToken(sql, unsubscribeToken, "unsubscribe");
}

/** The mailbox gets no confirmation mail any more (until it confirms again, or a confirmed wallet asks). */
async function suppressMailbox(sql: Queryable, email: string, reason: "unsubscribed" | "bounced", at: Date): Promise<void> {
  await sql`
    insert into email_mailboxes (mailbox, suppressed_at, suppressed_reason) values (${normalizedMailbox(email)}, ${at}, ${reason})
    on conflict (mailbox) do update set suppressed_at = excluded.suppressed_at, suppressed_reason = excluded.suppressed_reason`;
}

/** Stops all mail to the subscription at once: its deliveries not yet made are skipped. False for an unknown token. */
export async function unsubscribeEmail(sql: Queryable, unsubscribeToken: string): Promise<boolean> {
  const found = await subscriptionOfToken(sql, unsubscribeToken, "unsubscribe");
  if (!found) return false;
  const at = now();
  await sql`
    update email_subscriptions
    set unsubscribed_at = coalesce(unsubscribed_at, ${at}), unsubscribe_reason = coalesce(unsubscribe_reason, 'one-click')
    where id = ${found.id}`;
  await suppressMailbox(sql, found.email, "unsubscribed", at);
  await skipPending(sql, found.id, "Unsubscribed");
  return true;
}

export type MailboxStanding = {
  /** Why the mailbox gets no confirmation mail now (null: it may). */
  suppressed: "unsubscribed" | "bounced" | "unconfirmed" | null;
  /** Confirmation mails asked for it within the last hour and day. */
  lastHour: number;
  lastDay: number;
  /** When the next one may be asked for (null: now). */
  nextAllowedAt: Date | null;
};

/**
 * Where a mailbox stands for a new confirmation mail at `at`, its row locked for the rest of the transaction, so
 * two requests for one mailbox are counted one after the other (on either engine).
 */
export async function mailboxStanding(sql: Queryable, email: string, at: Date): Promise<MailboxStanding> {
  const mailbox = normalizedMailbox(email);
  await sql`insert into email_mailboxes (mailbox) values (${mailbox}) on conflict do nothing`;
  const [row] = await sql<{ confirmedAt: Date | null; suppressedReason: "unsubscribed" | "bounced" | null }[]>`
    select confirmed_at, suppressed_reason from email_mailboxes where mailbox = ${mailbox} for update`;
  const recent = await sql<{ requestedAt: Date }[]>`
    select requested_at from email_confirmations
    where mailbox = ${mailbox} and requested_at > ${new Date(at.getTime() - DAY_MS)}
    order by requested_at desc`;
  const [unconfirmed] = await sql`
    select 1 from email_confirmations
    where mailbox = ${mailbox} and state = 'sent' and sent_at < ${new Date(at.getTime() - UNCONFIRMED_SUPPRESSES_AFTER_MS)}
      and sent_at > coalesce(${row.confirmedAt}::timestamptz, '-infinity'::timestamptz)
    limit 1`;
  const lastHour = recent.filter((entry) => entry.requestedAt.getTime() > at.getTime() - HOUR_MS).length;
  const lastDay = recent.length;
  const waits = [
    lastHour >= CONFIRMATIONS_PER_HOUR ? recent[CONFIRMATIONS_PER_HOUR - 1].requestedAt.getTime() + HOUR_MS : 0,
    lastDay >= CONFIRMATIONS_PER_DAY ? recent[CONFIRMATIONS_PER_DAY - 1].requestedAt.getTime() + DAY_MS : 0,
  ];
  const until = Math.max(...waits);
  return {
    suppressed: row.suppressedReason ?? (unconfirmed ? "unconfirmed" : null),
    lastHour,
    lastDay,
    nextAllowedAt: until > at.getTime() ? new Date(until) : null,
  };
}

/**
 * Whether the wallet is a confirmed wallet: its own subscription (the one it has now, for whatever mailbox,
 * unsubscribed or not) was confirmed by opening a link we mailed. docs/decisions.md says why that is the test.
 */
export async function isConfirmedWallet(sql: Queryable, address: string): Promise<boolean> {
  const [row] = await sql`select 1 from email_subscriptions where address = ${address} and confirmed_at is not null`;
  return row !== undefined;
}

async function skipPending(sql: Queryable, id: number, reason: string): Promise<void> {
  await sql`
    update notification_deliveries set state = 'skipped', last_error = ${reason}, claimed_until = null
    where channel = 'email' and target = ${String(id)} and state in ('pending', 'retrying')`;
}

export async function findSubscription(sql: Queryable, id: number): Promise<EmailSubscription | null> {
  const [row] = await sql<EmailSubscription[]>`select ${sql.unsafe(COLUMNS)} from email_subscriptions where id = ${id}`;
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
    const [ended] = await sql<{ email: string }[]>`
      update email_subscriptions set unsubscribed_at = ${now()}, unsubscribe_reason = 'bounced'
      where id = ${id} and unsubscribed_at is null returning email`;
    if (ended) await suppressMailbox(sql, ended.email, "bounced", now());
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

// The confirmation mails' queue (migration 0025): the notification worker claims and sends them ----------------

export type ConfirmationToSend = {
  id: number;
  subscriptionId: number | null;
  mailbox: string;
  requestedAt: Date;
  attempts: number;
};

/** Claims up to `limit` due confirmation mails (pending and due, or `sending` past a crashed worker's lease) until `until`. */
export async function claimDueConfirmations(sql: Queryable, at: Date, until: Date, limit = 50): Promise<ConfirmationToSend[]> {
  const rows = await sql<ConfirmationToSend[]>`
    update email_confirmations c set state = 'sending', claimed_until = ${until}
    from (
      select id from email_confirmations
      where (state = 'pending' and next_attempt_at <= ${at}) or (state = 'sending' and claimed_until <= ${at})
      order by next_attempt_at, id limit ${limit}
      for update skip locked
    ) due
    where c.id = due.id
    returning c.id, c.subscription_id, c.mailbox, c.requested_at, c.attempts`;
  return rows.sort((a, b) => a.id - b.id);
}

export type ConfirmationResult =
  { outcome: "sent"; at: Date } | { outcome: "retry"; retryAt: Date; error: string } | { outcome: "failed" | "skipped"; error: string };

/** Records one attempt, where this worker's claim (`until`) still holds the row. */
export async function recordConfirmation(sql: Queryable, id: number, until: Date, result: ConfirmationResult): Promise<void> {
  const error = "error" in result ? result.error.slice(0, 2000) : null;
  if (result.outcome === "sent") {
    await sql`
      update email_confirmations set state = 'sent', attempts = attempts + 1, claimed_until = null, sent_at = ${result.at}, last_error = null
      where id = ${id} and state = 'sending' and claimed_until = ${until}`;
  } else if (result.outcome === "retry") {
    await sql`
      update email_confirmations set state = 'pending', attempts = attempts + 1, claimed_until = null,
        next_attempt_at = ${result.retryAt}, last_error = ${error}
      where id = ${id} and state = 'sending' and claimed_until = ${until}`;
  } else {
    await sql`
      update email_confirmations set state = ${result.outcome}, attempts = attempts + ${result.outcome === "failed" ? 1 : 0},
        claimed_until = null, last_error = ${error}
      where id = ${id} and state = 'sending' and claimed_until = ${until}`;
  }
}
