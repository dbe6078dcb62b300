-- Email notifications without mail bombs, SMTP outside transactions, no token kept in the clear (issue 32, items 1, 2
-- and 6; docs/notifications.md "Consent, confirmation, one address per wallet"). A mailbox is keyed by its normalized
-- form (app/domain/email-notifications.ts `normalizedMailbox`: lower case, no +tag, Gmail's dots dropped).

-- The links' tokens, kept as their SHA-256 only. A confirmation mail carries a confirm token and an unsubscribe
-- token, every notification mail an unsubscribe token of its own, made when the mail is sent (so the plain token
-- exists only in the mail); any of a subscription's tokens works until the subscription is replaced.
create table email_link_tokens (
  token_sha256    text primary key check (token_sha256 ~ '^[0-9a-f]{64}$'),
  subscription_id bigint not null references email_subscriptions (id) on delete cascade,
  kind            text not null check (kind in ('confirm', 'unsubscribe')),
  created_at      timestamptz not null
);
create index email_link_tokens_of_subscription on email_link_tokens (subscription_id);

insert into email_link_tokens (token_sha256, subscription_id, kind, created_at)
select confirm_token_hash, id, 'confirm', created_at from email_subscriptions;
insert into email_link_tokens (token_sha256, subscription_id, kind, created_at)
select encode(sha256(convert_to(unsubscribe_token, 'UTF8')), 'hex'), id, 'unsubscribe', created_at from email_subscriptions;
alter table email_subscriptions drop column confirm_token_hash, drop column unsubscribe_token;

-- The confirmation mails asked for: the notification worker sends them outside any transaction (the subscribe
-- request only records this row), and each mailbox's hourly and daily counts are read from them. A row outlives
-- its subscription (replaced: set null), so replacing a subscription does not reset its mailbox's counts.
create table email_confirmations (
  id              bigserial primary key,
  subscription_id bigint references email_subscriptions (id) on delete set null,
  address         text not null,
  mailbox         text not null,
  requested_at    timestamptz not null,
  state           text not null default 'pending' check (state in ('pending', 'sending', 'sent', 'failed', 'skipped')),
  attempts        integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz not null,
  -- While 'sending': until when the worker that claimed it holds it (as notification_deliveries).
  claimed_until   timestamptz,
  sent_at         timestamptz,
  last_error      text,
  check ((state = 'sent') = (sent_at is not null))
);
create index email_confirmations_by_mailbox on email_confirmations (mailbox, requested_at desc);
create index email_confirmations_due on email_confirmations (next_attempt_at) where state in ('pending', 'sending');

-- What a mailbox did: when it last confirmed a subscription, and why it gets no confirmation mail now
-- ('unsubscribed' by one-click, 'bounced' three times; 'unconfirmed' is read from email_confirmations: a mail
-- sent over 7 days ago and no confirmation since). Confirming a subscription lifts a suppression.
create table email_mailboxes (
  mailbox           text primary key,
  confirmed_at      timestamptz,
  suppressed_at     timestamptz,
  suppressed_reason text check (suppressed_reason in ('unsubscribed', 'bounced')),
  check ((suppressed_at is null) = (suppressed_reason is null))
);

insert into email_mailboxes (mailbox, confirmed_at, suppressed_at, suppressed_reason)
select mailbox, max(confirmed_at),
       max(unsubscribed_at) filter (where unsubscribed_at is not null),
       (array_agg(case unsubscribe_reason when 'bounced' then 'bounced' else 'unsubscribed' end order by unsubscribed_at desc)
          filter (where unsubscribed_at is not null))[1]
from (
  select s.*, case when parts.domain in ('gmail.com', 'googlemail.com')
                   then replace(parts.local, '.', '') || '@gmail.com'
                   else parts.local || '@' || parts.domain end as mailbox
  from email_subscriptions s,
       lateral (select split_part(regexp_replace(lower(btrim(s.email)), '@[^@]*$', ''), '+', 1) as local,
                       substring(lower(btrim(s.email)) from '@([^@]*)$') as domain) as parts
) as normalized
group by mailbox;
