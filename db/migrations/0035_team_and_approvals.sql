-- A team, not a single key (issue 35; docs/admin.md). ADMIN_ADDRESS stays the owner and is never stored here: the
-- owner adds members with a role, may require a second member's signed approval for chosen actions, and sees
-- every member's sessions. With no member and no policy, everything is as the spec's one admin had it.

-- The members besides the owner. Removing one deletes the row and revokes their sessions in the same
-- transaction; every admin request also checks membership, so a session never outlives its member.
create table team_members (
  address   text primary key check (address ~ '^[1-9A-HJ-NP-Za-km-z]{25,40}$'),
  role      text not null check (role in ('admin', 'moderator', 'viewer')),
  added_by  text not null,
  added_at  timestamptz not null
);

-- What the sessions list shows: the browser that signed in, and when the session was last used (written at
-- most once a minute per session).
alter table sessions add column user_agent text check (char_length(user_agent) <= 500);
alter table sessions add column last_seen_at timestamptz;
create index sessions_live_by_address on sessions (address) where revoked_at is null;

-- The owner's policy: which actions need a second signature (the names of app/domain/approvals.ts), and
-- additions or clears of more than `points_above` points. One row at most; none is "off".
create table approval_policy (
  id            boolean primary key default true check (id),
  points_above  numeric(12, 2) check (points_above >= 0),
  actions       text[] not null default '{}' check (actions <@ array[
    'clear-points', 'reset-negative-balances', 'recalculate-points', 'giveaway.delete', 'select-winner',
    'boosts', 'team', 'webhooks', 'discord.rules'
  ]::text[]),
  updated_by    text not null,
  updated_at    timestamptz not null
);

-- A covered request, kept as it was asked until a different member approves it with their wallet's
-- signature (then it is applied, in the same transaction as the status), someone rejects it, or 24 hours
-- pass (read as expired: `status` stays 'pending' past `expires_at`).
create table admin_approvals (
  id                  integer primary key generated always as identity,
  kind                text not null check (kind in (
    'clear-points', 'reset-negative-balances', 'recalculate-points', 'giveaway.delete', 'select-winner',
    'boosts', 'team', 'webhooks', 'discord.rules', 'add-points', 'approvals.policy'
  )),
  -- The API operation whose input is kept (clearPoints, deleteGiveaway...), and that input as it was parsed.
  operation           text not null check (char_length(operation) between 1 and 100),
  input               jsonb not null,
  -- The one line the approver signs (`Approve Spooks action #{id}: {summary}. Timestamp: {ISO}`).
  summary             text not null check (char_length(summary) between 1 and 300 and summary !~ '[[:cntrl:]]'),
  -- What it would do when it was proposed: { before, after }.
  preview             jsonb not null,
  proposed_by         text not null,
  created_at          timestamptz not null,
  expires_at          timestamptz not null,
  status              text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  decided_by          text,
  decided_at          timestamptz,
  -- The approver's signed message and signature: the proof of the second signature.
  approval_message    text check (char_length(approval_message) <= 2000),
  approval_signature  text check (char_length(approval_signature) <= 200),
  check (expires_at > created_at),
  check ((status = 'pending') = (decided_by is null) and (decided_by is null) = (decided_at is null)),
  check ((status = 'approved') = (approval_signature is not null and approval_message is not null)),
  -- Nobody approves their own proposal, whoever writes.
  check (status <> 'approved' or decided_by <> proposed_by)
);
create index admin_approvals_pending on admin_approvals (expires_at) where status = 'pending';

-- A decided approval is history, and what was proposed never changes: only the decision is written, once.
create function admin_approval_decided_once() returns trigger language plpgsql as $$
begin
  if old.status <> 'pending' then
    raise exception 'approval % was already %', old.id, old.status using errcode = 'check_violation';
  end if;
  if (new.kind, new.operation, new.input, new.summary, new.preview, new.proposed_by, new.created_at, new.expires_at)
     is distinct from (old.kind, old.operation, old.input, old.summary, old.preview, old.proposed_by, old.created_at, old.expires_at) then
    raise exception 'approval %: what was proposed never changes', old.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger admin_approvals_decided_once before update on admin_approvals
  for each row execute function admin_approval_decided_once();
revoke delete, truncate on admin_approvals from spooks_runtime;

-- approval.pending: an admin-only event of the outbox (the Discord channel and webhooks that ask for it; never
-- the site's public list, never email).
alter table notification_events drop constraint notification_events_event_check;
alter table notification_events add constraint notification_events_event_check check (event in (
  'boosts.scheduled',
  'giveaway.opened', 'giveaway.closing_soon', 'giveaway.drawn', 'giveaway.won',
  'proposal.opened', 'proposal.closing_soon', 'proposal.closed',
  'stake.ended', 'points.adjusted',
  'approval.pending'
));
