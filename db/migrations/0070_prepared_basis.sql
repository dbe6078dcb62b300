-- A new schedule's first hour at the price of any other (issue 36, item 2; docs/decisions.md "A new schedule's
-- basis, prepared an hour ahead").
--
-- 1. The prepared basis: every wallet's figures under the schedule the next hour will be credited with, when it
--    differs from the basis's, aggregated by the accrual pass after it credits the hour before (an hour before
--    the new schedule's first hour is credited, and in a transaction no holder waits on). The first hour under
--    the new schedule starts from it as an hour starts from the basis: only the wallets that can differ since
--    (marked stale, stakes begun or ended, tenure steps crossed) are recomputed.
-- 2. Carried units: when the basis takes the prepared figures, a wallet's accrual not yet folded into its
--    balance row (at the old figures) moves into `carried_units` instead of into `balances`, so the switch writes
--    no balance row: the next fold moves it on. A balance is its row plus the carried units plus the hourly
--    units for every hour credited since `since_credit`.
alter table accrual_basis add column carried_units bigint not null default 0 check (carried_units >= 0);

-- The leaderboard's bound (how far a balance can be ahead of its row), kept with the basis instead of read from
-- an index on `hourly_units`: the highest hourly credit, written with each hour's rows; the most any carried
-- units can be; and the credit count from which every wallet has been folded since they were carried (each is
-- folded at least once every 24 credits), so none is left.
alter table accrual_basis_hour
  add column max_hourly_units bigint not null default 0 check (max_hourly_units >= 0),
  add column max_carried_units bigint not null default 0 check (max_carried_units >= 0),
  add column carried_until bigint not null default 0 check (carried_until >= 0);
update accrual_basis_hour set max_hourly_units = coalesce((select max(hourly_units) from accrual_basis), 0);
-- Without that index, and with room on each page, taking the prepared figures updates each row in place (HOT):
-- no index holds a column it changes. (Pages written before keep their fill until rewritten.)
drop index accrual_basis_by_rate;
alter table accrual_basis set (fillfactor = 45);

create table accrual_basis_prepared (
  address               text primary key,
  staked_spooks         integer not null check (staked_spooks >= 0),
  staked_spook_society  integer not null check (staked_spook_society >= 0),
  rarity_percent_sum    bigint not null check (rarity_percent_sum >= 0),
  boost_percent_sum     bigint not null check (boost_percent_sum >= 0),
  hourly_units          bigint not null check (hourly_units > 0),
  since_credit          bigint not null check (since_credit >= 0),
  check (staked_spooks + staked_spook_society > 0)
);

-- The hour the prepared figures describe, their schedule, and the basis's credit count when they were
-- prepared: they are used only if no hour has been credited since (its stale marks are then theirs too).
create table accrual_basis_prepared_hour (
  only_row       boolean primary key default true check (only_row),
  hour           timestamptz not null check (hour = date_trunc('hour', hour)),
  boost_version  integer not null references boost_schedules (version),
  credits        bigint not null check (credits >= 0)
);

create or replace view wallet_balances as
  select b.address, b.units + coalesce(a.carried_units + a.hourly_units * (h.credits - a.since_credit), 0) as units, b.updated_at
  from balances b
  left join accrual_basis a on a.address = b.address
  left join accrual_basis_hour h on true;
