-- Notifications (issue 24; docs/notifications.md). The outbox: one row per event, written in the same
-- transaction as its cause (a giveaway opened, a stake ended by a transfer, points adjusted...), and one
-- delivery per channel and target, made and sent by the indexer's notification worker.

create table notification_events (
  id bigserial primary key,
  -- The event names of app/domain/notifications.ts.
  event text not null check (event in (
    'giveaway.opened', 'giveaway.closing_soon', 'giveaway.drawn', 'giveaway.won',
    'proposal.opened', 'proposal.closing_soon', 'proposal.closed',
    'stake.ended', 'points.adjusted'
  )),
  -- What the event is about, unique per event: a giveaway or proposal id, a stake id, a ledger entry id.
  subject text not null,
  -- The one address a personal event goes to; null for an event that goes to everyone.
  recipient text,
  occurred_at timestamptz not null default now(),
  title text not null,
  body text not null,
  -- A path of the site (`/rewards`, `/governance/7`...), made absolute with PUBLIC_URL where it leaves the site.
  link text not null,
  data jsonb not null default '{}'::jsonb,
  -- Set once the worker has made this event's deliveries (its channels and targets at that moment).
  fanned_out_at timestamptz,
  check ((recipient is null) = (event not in ('giveaway.won', 'stake.ended', 'points.adjusted')))
);
-- Nothing is announced twice: one row per (event, subject, recipient); writers insert with
-- `on conflict (event, subject, coalesce(recipient, '')) do nothing`.
create unique index notification_events_once on notification_events (event, subject, coalesce(recipient, ''));
create index notification_events_newest on notification_events (id desc);
create index notification_events_for_recipient on notification_events (recipient, id desc) where recipient is not null;
create index notification_events_to_fan_out on notification_events (id) where fanned_out_at is null;

create table notification_deliveries (
  id bigserial primary key,
  event_id bigint not null references notification_events (id) on delete cascade,
  -- 'discord' (the channel webhook of DISCORD_WEBHOOK_URL), 'webhook' (a signed outgoing webhook), 'email'.
  channel text not null check (channel in ('discord', 'webhook', 'email')),
  -- Which one of the channel: a webhook endpoint's id, an email subscription's id; '' for Discord.
  target text not null default '',
  state text not null default 'pending'
    check (state in ('pending', 'sending', 'delivered', 'retrying', 'failed', 'skipped')),
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz not null default now(),
  -- While 'sending': until when the worker that claimed it holds it (a crashed worker's claim runs out).
  claimed_until timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (event_id, channel, target)
);
create index notification_deliveries_due on notification_deliveries (next_attempt_at)
  where state in ('pending', 'retrying', 'sending');
create index notification_deliveries_by_target on notification_deliveries (channel, target, id desc);
