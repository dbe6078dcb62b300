-- Signed outgoing webhooks and email subscriptions (issue 24, items 5 and 6; docs/notifications.md): the
-- targets of the 'webhook' and 'email' channels of notification_deliveries (migration 0018), whose
-- `target` column holds a webhook_endpoints or email_subscriptions id as text.

create table webhook_endpoints (
  id bigserial primary key,
  url text not null,
  events text[] not null check (cardinality(events) >= 1),
  -- "whsec_" + base64 of 32 random bytes (Standard Webhooks). Kept to sign; shown to the admin once.
  secret text not null check (secret like 'whsec\_%'),
  -- After a rotation the old secret also signs (a second v1 signature) until this moment, so a receiver can
  -- switch at its own pace.
  previous_secret text check (previous_secret like 'whsec\_%'),
  previous_secret_expires_at timestamptz,
  -- Random per endpoint: the webhook-id of a delivery is msg_{salt}_{delivery id}, unique across databases.
  message_salt text not null,
  active boolean not null default true,
  -- Why it was disabled: a 410 Gone, 24 h of failures, a destination no longer public.
  disabled_reason text,
  disabled_at timestamptz,
  -- The first failure since the last success; 24 h of it disables the endpoint.
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  check (active = (disabled_reason is null)),
  check ((previous_secret is null) = (previous_secret_expires_at is null))
);

create table email_subscriptions (
  id bigserial primary key,
  -- One address per wallet: a new signed subscription replaces the row (and needs a new confirmation).
  address text not null unique,
  email text not null check (length(email) between 3 and 254),
  events text[] not null check (cardinality(events) >= 1),
  -- sha256 (hex) of the token the confirmation link holds; nothing is sent until it is opened.
  confirm_token_hash text not null unique,
  confirmed_at timestamptz,
  -- The token of the List-Unsubscribe URL in every email (random, 32 bytes base64url): it alone names the row.
  unsubscribe_token text not null unique,
  unsubscribed_at timestamptz,
  -- 'one-click' (RFC 8058 POST), 'bounced' (three hard bounces).
  unsubscribe_reason text check (unsubscribe_reason in ('one-click', 'bounced')),
  hard_bounces integer not null default 0 check (hard_bounces >= 0),
  created_at timestamptz not null default now(),
  check ((unsubscribed_at is null) = (unsubscribe_reason is null))
);

-- Demo mode: mail is captured here (the whole message as it would have gone out) and shown to the admin
-- instead of being sent. Append-only for the app.
create table captured_mail (
  id bigserial primary key,
  recipient text not null,
  subject text not null,
  headers jsonb not null,
  text_body text not null,
  raw text not null,
  captured_at timestamptz not null default now()
);
create index captured_mail_newest on captured_mail (id desc);

revoke update, truncate on captured_mail from spooks_runtime;
