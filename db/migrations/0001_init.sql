-- Spooks schema. Rules live here as constraints, not only in code.
-- Points are stored in units: 1 point = 2400 units (DECISIONS: every hourly credit is whole).

-- Catalogue -----------------------------------------------------------------------------------------
create table items (
  id              serial primary key,
  inscription_id  text not null unique check (inscription_id ~ '^[0-9a-f]{64}i[0-9]+$'),
  collection      text not null check (collection in ('spooks', 'spook-society')),
  name            text not null unique check (char_length(name) between 1 and 200),
  number          integer not null check (number > 0),
  rank            integer not null check (rank > 0),
  rarity          text not null check (rarity = case
                    when rank <= 44 then 'Legendary'
                    when rank <= 178 then 'Epic'
                    when rank <= 444 then 'Rare'
                    else 'Common' end),
  image_url       text,
  unique (collection, rank),
  unique (collection, number)
);

-- Ownership, as the indexer last saw it, and every change it saw ----------------------------------
create table ownership (
  item_id        integer primary key references items (id) on delete cascade,
  owner_address  text not null,
  satpoint       text not null check (satpoint ~ '^[0-9a-f]{64}:[0-9]+:[0-9]+$'),
  block_height   integer check (block_height >= 0),
  seen_at        timestamptz not null
);
create index ownership_by_owner on ownership (owner_address);

create table transfers (
  id             bigserial primary key,
  item_id        integer not null references items (id) on delete cascade,
  from_address   text,
  to_address     text not null,
  satpoint       text not null,
  block_height   integer,
  seen_at        timestamptz not null
);
create index transfers_by_item on transfers (item_id, id);

-- Stakes: an item has at most one open stake --------------------------------------------------------
create table stakes (
  id          bigserial primary key,
  item_id     integer not null references items (id) on delete cascade,
  address     text not null,
  started_at  timestamptz not null,
  ended_at    timestamptz,
  end_reason  text check (end_reason in ('unstaked', 'transferred', 'admin')),
  check ((ended_at is null) = (end_reason is null)),
  check (ended_at is null or ended_at >= started_at)
);
create unique index stakes_one_open_per_item on stakes (item_id) where ended_at is null;
create index stakes_open_by_address on stakes (address) where ended_at is null;
create index stakes_by_address_history on stakes (address, started_at);

-- Points ledger: append-only; a balance is the sum of its rows --------------------------------------
create table points_ledger (
  id            bigserial primary key,
  address       text not null,
  kind          text not null check (kind in (
                  'accrual', 'admin_add', 'admin_clear', 'giveaway_entry', 'giveaway_refund',
                  'negative_reset', 'recalculation')),
  amount        bigint not null check (amount <> 0),
  accrual_hour  timestamptz,
  reference     text,
  description   text,
  actor         text not null,
  created_at    timestamptz not null,
  check ((kind = 'accrual') = (accrual_hour is not null)),
  check (kind <> 'accrual' or (amount > 0 and accrual_hour = date_trunc('hour', accrual_hour))),
  check (kind not in ('admin_add', 'giveaway_refund') or amount > 0),
  check (kind <> 'giveaway_entry' or amount < 0)
);
create unique index points_ledger_one_accrual_per_wallet_hour
  on points_ledger (address, accrual_hour) where kind = 'accrual';
create index points_ledger_by_address on points_ledger (address, id);

create function points_ledger_is_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'points_ledger is append-only';
end $$;
create trigger points_ledger_no_update before update or delete on points_ledger
  for each row execute function points_ledger_is_append_only();
create trigger points_ledger_no_truncate before truncate on points_ledger
  for each statement execute function points_ledger_is_append_only();

-- Cached balance per wallet, kept in step with the ledger by one statement-level trigger.
create table balances (
  address     text primary key,
  units       bigint not null default 0,
  updated_at  timestamptz not null default now()
);
create index balances_by_units on balances (units desc, address);

create function apply_ledger_to_balances() returns trigger language plpgsql as $$
begin
  insert into balances as b (address, units, updated_at)
    select address, sum(amount), max(created_at) from new_rows group by address
  on conflict (address) do update
    set units = b.units + excluded.units, updated_at = excluded.updated_at;
  -- Spending never takes a balance below zero (accrual, refunds and admin rows may leave it anywhere).
  if exists (
    select 1 from balances b
    where b.units < 0 and b.address in (select address from new_rows where kind = 'giveaway_entry')
  ) then
    raise exception 'insufficient points' using errcode = 'check_violation';
  end if;
  return null;
end $$;
create trigger points_ledger_updates_balances after insert on points_ledger
  referencing new table as new_rows for each statement execute function apply_ledger_to_balances();

-- Hours the accrual has finished (the per-wallet key above is what makes it idempotent) -------------
create table accrual_runs (
  hour          timestamptz primary key check (hour = date_trunc('hour', hour)),
  wallets       integer not null check (wallets >= 0),
  units         bigint not null check (units >= 0),
  source        text not null check (source in ('scheduled', 'cli', 'startup')),
  finished_at   timestamptz not null
);

-- Ownership sync passes ----------------------------------------------------------------------------
create table sync_runs (
  id              bigserial primary key,
  source          text not null check (source in ('scheduled', 'cli', 'startup')),
  started_at      timestamptz not null,
  finished_at     timestamptz not null,
  block_height    integer,
  items_checked   integer not null check (items_checked >= 0),
  owners_changed  integer not null check (owners_changed >= 0),
  stakes_ended    integer not null check (stakes_ended >= 0),
  errors          integer not null check (errors >= 0)
);

-- Giveaways ----------------------------------------------------------------------------------------
create table giveaways (
  id                serial primary key,
  title             text not null check (char_length(title) between 1 and 200),
  description       text not null check (char_length(description) between 1 and 5000),
  image_url         text not null check (char_length(image_url) between 1 and 2000),
  points_cost       integer not null check (points_cost >= 1),
  end_date          timestamptz not null,
  active            boolean not null default true,
  -- commit-reveal draw: draw_commitment = sha256(draw_seed) is public from creation,
  -- draw_seed is revealed only once a winner is drawn.
  draw_commitment   text not null check (draw_commitment ~ '^[0-9a-f]{64}$'),
  draw_seed         text not null check (draw_seed ~ '^[0-9a-f]{64}$'),
  winner_address    text,
  drawn_at          timestamptz,
  created_at        timestamptz not null,
  check ((winner_address is null) = (drawn_at is null))
);

create table giveaway_entries (
  id           serial primary key,
  giveaway_id  integer not null references giveaways (id) on delete cascade,
  address      text not null,
  tickets      integer not null check (tickets >= 1),
  cost_units   bigint not null check (cost_units > 0),
  entered_at   timestamptz not null,
  is_winner    boolean not null default false
);
create index giveaway_entries_by_giveaway on giveaway_entries (giveaway_id, id);
create index giveaway_entries_by_address on giveaway_entries (address);
create unique index giveaway_entries_one_winner on giveaway_entries (giveaway_id) where is_winner;

-- Governance ---------------------------------------------------------------------------------------
create table proposals (
  id           serial primary key,
  title        text not null check (char_length(title) between 1 and 200),
  description  text not null check (char_length(description) between 1 and 5000),
  start_date   timestamptz not null,
  end_date     timestamptz not null,
  vote_type    text not null check (vote_type in ('yes_no', 'multiple_choice')),
  created_by   text not null,
  created_at   timestamptz not null,
  check (end_date > start_date)
);

create table proposal_options (
  id           serial primary key,
  proposal_id  integer not null references proposals (id) on delete cascade,
  position     integer not null check (position >= 0),
  option_text  text not null check (char_length(option_text) between 1 and 200),
  unique (proposal_id, position),
  unique (proposal_id, id)
);

create table votes (
  id           serial primary key,
  proposal_id  integer not null references proposals (id) on delete cascade,
  option_id    integer not null,
  address      text not null,
  weight       integer not null check (weight > 0),
  signature    text not null,
  message      text not null,
  voted_at     timestamptz not null,
  unique (proposal_id, address),
  foreign key (proposal_id, option_id) references proposal_options (proposal_id, id) on delete cascade
);

-- Signatures: each signed message is accepted once per address -----------------------------------
create table used_signatures (
  address     text not null,
  message     text not null,
  signature   text not null,
  action      text not null,
  used_at     timestamptz not null,
  primary key (address, message)
);

-- Sign-in ------------------------------------------------------------------------------------------
create table auth_challenges (
  nonce       text primary key,
  address     text not null,
  message     text not null,
  issued_at   timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz,
  check (expires_at > issued_at)
);

create table sessions (
  token_hash  text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  address     text not null,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  revoked_at  timestamptz
);

-- Audit trail of admin actions, from the web or the CLI --------------------------------------------
create table audit_log (
  id             bigserial primary key,
  actor          text not null check (actor in ('web', 'cli', 'system')),
  actor_address  text,
  action         text not null,
  target         text,
  details        jsonb not null default '{}',
  created_at     timestamptz not null
);
create index audit_log_by_time on audit_log (created_at desc);
