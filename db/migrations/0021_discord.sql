-- Discord holder roles (issue 25; docs/discord.md). A wallet is linked to one Discord account and an
-- account to one wallet; the rules say which role each standing earns; the indexer's role sync compares
-- every linked member's earned roles with the ones it granted and makes Discord agree.

-- The OAuth2 `state` of GET /discord/link: single use, bound to the address, 10 minutes. Stored hashed.
create table discord_oauth_states (
  state_hash  text primary key,
  address     text not null,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index discord_oauth_states_by_expiry on discord_oauth_states (expires_at);

-- After the callback: who the Discord user is, waiting for the wallet's signature (the link token, hashed).
create table discord_pending_links (
  token_hash       text primary key,
  address          text not null,
  discord_user_id  text not null check (discord_user_id ~ '^[0-9]{17,20}$'),
  username         text not null check (char_length(username) between 1 and 100),
  message          text not null,
  created_at       timestamptz not null,
  expires_at       timestamptz not null,
  used_at          timestamptz
);
create index discord_pending_links_by_expiry on discord_pending_links (expires_at);

-- One Discord account per wallet, one wallet per account.
create table discord_links (
  address          text primary key,
  discord_user_id  text not null unique check (discord_user_id ~ '^[0-9]{17,20}$'),
  username         text not null check (char_length(username) between 1 and 100),
  linked_at        timestamptz not null,
  -- Discord answered 404 10007 (not in the guild): skipped until a sweep finds the member again.
  absent_since     timestamptz
);

-- The rules: a member earns role_id when every condition set holds. Only these roles are ever touched.
create table discord_rules (
  role_id          text primary key check (role_id ~ '^[0-9]{17,20}$'),
  position         integer not null check (position >= 0),
  min_staked       integer check (min_staked >= 0),
  min_points       bigint check (min_points >= 0),
  min_legendary    integer check (min_legendary >= 0),
  min_staked_days  integer check (min_staked_days >= 0)
);

-- The roles the sync granted (and Discord confirmed), per Discord user: what it compares the earned roles with.
create table discord_role_grants (
  discord_user_id  text not null,
  role_id          text not null,
  granted_at       timestamptz not null,
  primary key (discord_user_id, role_id)
);

-- What Discord refused that a person must fix: a role the bot cannot assign (403 50013), reported once and
-- not retried per member until the rules are saved again; the bot token refused (401), which stops the sync.
create table discord_problems (
  key          text primary key,
  kind         text not null check (kind in ('role-unassignable', 'bad-token')),
  role_id      text,
  message      text not null,
  first_seen   timestamptz not null
);

-- The last reconciliation sweep (one row).
create table discord_sweeps (
  id           bigserial primary key,
  started_at   timestamptz not null,
  finished_at  timestamptz not null,
  source       text not null check (source in ('scheduled', 'cli', 'startup')),
  members      integer not null check (members >= 0),
  absent       integer not null check (absent >= 0),
  added        integer not null check (added >= 0),
  removed      integer not null check (removed >= 0),
  -- Role changes the sweep had to make (roles found differing from the rules): 0 in steady state.
  difference   integer not null check (difference >= 0),
  requests     integer not null check (requests >= 0),
  errors       integer not null check (errors >= 0)
);
create index discord_sweeps_newest on discord_sweeps (id desc);
