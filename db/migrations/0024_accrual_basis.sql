-- The accrual at its floor (issue 26, item 5; docs/decisions.md "Accrual at its floor").
--
-- 1. The accrual's basis: each wallet's figures for the last hour credited, carried to the next hour instead
--    of aggregating every stake again. Hour H's figures differ from hour B's only for wallets whose stakes
--    changed since (marked stale below), began or ended between the two hours, or crossed a tenure step; the
--    accrual recomputes those wallets from their stakes and keeps the rest.
-- 2. Balances that accrue: an hour credited through the basis writes its ledger rows but no balance. A
--    wallet's balance is its `balances.units` plus `hourly_units` for every hour credited since `since_credit`
--    (the view wallet_balances); the accrual folds that into `balances.units` when the wallet's figures
--    change, and at every 24th hour credited in any case (`fold_phase` spreads the wallets over the 24), so
--    a balance is never more than 24 of its hourly credits ahead of its row and the leaderboard can bound it.
create table accrual_basis (
  address               text primary key references balances (address),
  staked_spooks         integer not null check (staked_spooks >= 0),
  staked_spook_society  integer not null check (staked_spook_society >= 0),
  rarity_percent_sum    bigint not null check (rarity_percent_sum >= 0),
  boost_percent_sum     bigint not null check (boost_percent_sum >= 0),
  hourly_units          bigint not null check (hourly_units > 0),
  since_credit          bigint not null check (since_credit >= 0),
  fold_phase            smallint not null generated always as ((hashtext(address) & 2147483647) % 24) stored,
  check (staked_spooks + staked_spook_society > 0)
);
-- Folding moves since_credit alone, which no index holds: the update stays on its page (HOT).
alter table accrual_basis set (fillfactor = 80);
create index accrual_basis_by_fold_phase on accrual_basis (fold_phase);
create index accrual_basis_by_rate on accrual_basis (hourly_units);

-- The hour the basis describes, the schedule it was computed with (null: the defaults) and how many hours
-- have been credited through it. One row at most.
create table accrual_basis_hour (
  only_row       boolean primary key default true check (only_row),
  hour           timestamptz not null check (hour = date_trunc('hour', hour)),
  boost_version  integer references boost_schedules (version),
  credits        bigint not null default 0 check (credits >= 0)
);

-- Wallets whose stakes were written since the basis was computed, whatever the write (a retroactive end, a
-- reopened stake, a deleted one): recomputed at the next hour credited.
create table accrual_basis_stale (address text primary key);

create function stakes_mark_basis_stale() returns trigger language plpgsql as $$
begin
  if tg_op in ('INSERT', 'UPDATE') then
    insert into accrual_basis_stale (address) select distinct address from new_rows on conflict do nothing;
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    insert into accrual_basis_stale (address) select distinct address from old_rows on conflict do nothing;
  end if;
  return null;
end $$;
-- A trigger with transition tables has one event each.
create trigger stakes_inserted_mark_basis_stale after insert on stakes
  referencing new table as new_rows for each statement execute function stakes_mark_basis_stale();
create trigger stakes_updated_mark_basis_stale after update on stakes
  referencing old table as old_rows new table as new_rows for each statement execute function stakes_mark_basis_stale();
create trigger stakes_deleted_mark_basis_stale after delete on stakes
  referencing old table as old_rows for each statement execute function stakes_mark_basis_stale();

-- What moves with time alone between two credited hours: stakes that began, ended, or crossed a tenure step.
create index stakes_by_start on stakes (started_at);
create index stakes_by_end on stakes (ended_at) where ended_at is not null;
create index stakes_by_tenure on stakes (tenure_from);

-- A wallet's balance: its row plus what the basis has credited it and not yet folded into the row.
create view wallet_balances as
  select b.address, b.units + coalesce(a.hourly_units * (h.credits - a.since_credit), 0) as units, b.updated_at
  from balances b
  left join accrual_basis a on a.address = b.address
  left join accrual_basis_hour h on true;

-- An accrual row credited through the basis says so: its balance comes through the basis, so the balances
-- trigger leaves it out (and only it: a row of any other kind is always applied, and a spend always checked).
alter table points_ledger
  add column in_basis boolean not null default false,
  add constraint points_ledger_in_basis_is_accrual check (not in_basis or kind = 'accrual');

create or replace function apply_ledger_to_balances() returns trigger language plpgsql as $$
begin
  insert into balances as b (address, units, updated_at)
    select address, sum(amount), max(created_at) from new_rows where not in_basis group by address
  on conflict (address) do update
    set units = b.units + excluded.units, updated_at = excluded.updated_at;
  -- Spending never takes a balance below zero (accrual, refunds and admin rows may leave it anywhere). Read
  -- from the spending wallets, one balance each (a balance has no index: the basis adds to its row).
  if exists (
    select 1 from (select distinct address from new_rows where kind = 'giveaway_entry') as spender
    where (select w.units from wallet_balances w where w.address = spender.address) < 0
  ) then
    raise exception 'insufficient points' using errcode = 'check_violation';
  end if;
  return null;
end $$;

-- An accrual row's schedule, checked once per statement instead of by a foreign key once per row: an hour's
-- 100,000 rows took 100,000 key-share locks on the one schedule row they all name. Schedules are never
-- changed or removed by the app (0022 revokes both), which is what the key's other half guarded.
alter table points_ledger drop constraint points_ledger_boost_version_fkey;
create function points_ledger_boost_version_known() returns trigger language plpgsql as $$
declare unknown integer;
begin
  select v.boost_version into unknown
  from (select distinct boost_version from new_rows where boost_version is not null) as v
  where not exists (select 1 from boost_schedules s where s.version = v.boost_version)
  limit 1;
  if unknown is not null then
    raise exception 'boost_version % is not a boost schedule', unknown using errcode = 'foreign_key_violation';
  end if;
  return null;
end $$;
create trigger points_ledger_boost_version_known after insert on points_ledger
  referencing new table as new_rows for each statement execute function points_ledger_boost_version_known();
