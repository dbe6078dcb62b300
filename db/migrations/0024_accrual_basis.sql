-- The accrual's basis (issue 26, "accrual at its floor"): each wallet's figures for the last hour credited,
-- carried to the next hour instead of aggregating every stake again. Hour H's figures differ from hour B's
-- only for wallets whose stakes changed since (marked stale below), began or ended between the two hours,
-- or crossed a tenure step; the accrual recomputes those wallets from their stakes and keeps the rest.
create table accrual_basis (
  address               text primary key,
  staked_spooks         integer not null check (staked_spooks >= 0),
  staked_spook_society  integer not null check (staked_spook_society >= 0),
  rarity_percent_sum    bigint not null check (rarity_percent_sum >= 0),
  boost_percent_sum     bigint not null check (boost_percent_sum >= 0),
  check (staked_spooks + staked_spook_society > 0)
);

-- The hour the basis describes and the schedule it was computed with (null: the defaults). One row at most.
create table accrual_basis_hour (
  only_row       boolean primary key default true check (only_row),
  hour           timestamptz not null check (hour = date_trunc('hour', hour)),
  boost_version  integer references boost_schedules (version)
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
