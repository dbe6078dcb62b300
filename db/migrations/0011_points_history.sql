-- Points history (issue 18): every ledger row explains itself to its holder.
--
-- An accrual records what it was computed from (items staked per collection, the tier and the per-item
-- hourly rate in units), and the database checks that they give its amount; a giveaway entry or refund
-- records the giveaway (its id, its title at the time) and the tickets. `details_source` says where a row's
-- explanation comes from: 'recorded' when it was written with the row, 'reconstructed' when this migration
-- rebuilt it from what the database still holds (stakes, giveaways, the row's own reference and text),
-- 'unknown' when it could not (the row's amount, time and kind are known; why, is not).
alter table points_ledger
  add column staked_spooks integer check (staked_spooks >= 0),
  add column staked_spook_society integer check (staked_spook_society >= 0),
  add column tier smallint check (tier >= 1),
  add column item_hour_units integer check (item_hour_units > 0),
  add column giveaway_id integer check (giveaway_id >= 1),
  add column giveaway_title text,
  add column tickets integer check (tickets >= 1),
  add column details_source text not null default 'recorded'
    check (details_source in ('recorded', 'reconstructed', 'unknown'));

-- Old rows get their explanation once, here. The append-only guard is lifted for this transaction only:
-- no address, kind, amount or time changes, and the guard is back before the migration commits.
alter table points_ledger disable trigger points_ledger_no_update;

-- An accrual credited hour H to the stakes open for all of it; the stakes are still there (they are ended,
-- never deleted), so they are counted again, at the tiers of the time. Only a count that gives the
-- credited amount is kept; any other accrual is marked unknown.
with counted as (
  select l.id,
         count(*) filter (where i.collection = 'spooks')::int as spooks,
         count(*) filter (where i.collection = 'spook-society')::int as society,
         count(*)::int as n
  from points_ledger l
  join stakes s on s.address = l.address
    and s.started_at <= l.accrual_hour
    and (s.ended_at is null or s.ended_at >= l.accrual_hour + interval '1 hour')
  join items i on i.id = s.item_id
  where l.kind = 'accrual'
  group by l.id
), rated as (
  select id, spooks, society, n,
         case when n >= 10 then 3 when n >= 5 then 2 else 1 end as tier,
         case when n >= 10 then 15000 when n >= 5 then 12000 else 10000 end as item_hour_units
  from counted
)
update points_ledger l
set staked_spooks = r.spooks, staked_spook_society = r.society, tier = r.tier,
    item_hour_units = r.item_hour_units, details_source = 'reconstructed'
from rated r
where l.id = r.id and l.amount = r.n::int8 * r.item_hour_units;

update points_ledger set details_source = 'unknown' where kind = 'accrual' and staked_spooks is null;

-- Entries and refunds name their giveaway and entry in `reference` ('giveaway:{id}:entry:{entryId}'); the
-- tickets are in the entry's row while the giveaway exists, else in the entry's ledger text
-- ('Giveaway #{id}: {n} ticket(s)'); the title only while the giveaway exists.
with named as (
  select l.id, l.reference,
         substring(l.reference from '^giveaway:(\d+):entry:\d+$')::int as giveaway_id,
         substring(l.reference from '^giveaway:\d+:entry:(\d+)$')::int as entry_id
  from points_ledger l
  where l.kind in ('giveaway_entry', 'giveaway_refund')
), found as (
  select n.id, n.giveaway_id,
         (select g.title from giveaways g where g.id = n.giveaway_id) as title,
         coalesce(
           (select e.tickets from giveaway_entries e where e.id = n.entry_id and e.giveaway_id = n.giveaway_id),
           (select substring(s.description from '^Giveaway #\d+: (\d+) ticket')::int
              from points_ledger s where s.kind = 'giveaway_entry' and s.reference = n.reference
              order by s.id limit 1)
         ) as tickets
  from named n
  where n.giveaway_id is not null
)
update points_ledger l
set giveaway_id = f.giveaway_id, giveaway_title = f.title, tickets = f.tickets, details_source = 'reconstructed'
from found f
where l.id = f.id and f.tickets is not null;

update points_ledger set details_source = 'unknown'
where kind in ('giveaway_entry', 'giveaway_refund') and giveaway_id is null;

alter table points_ledger enable trigger points_ledger_no_update;

-- From now on an accrual cannot be written without what explains it, and what it says must give its amount.
alter table points_ledger add constraint points_ledger_accrual_explained check (
  kind <> 'accrual' or details_source = 'unknown' or (
    staked_spooks is not null and staked_spook_society is not null and tier is not null and item_hour_units is not null
    and amount = (staked_spooks + staked_spook_society)::int8 * item_hour_units));
alter table points_ledger add constraint points_ledger_giveaway_explained check (
  kind not in ('giveaway_entry', 'giveaway_refund') or details_source = 'unknown'
  or (giveaway_id is not null and tickets is not null));

-- A history page and its balances read a wallet's rows by id with their amounts: an index-only scan.
create index points_ledger_by_address_with_amount on points_ledger (address, id) include (amount);
drop index points_ledger_by_address;
