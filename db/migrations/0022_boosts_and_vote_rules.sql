-- Boosts, exact accrual at its floor, votes that can change and quorum (issue 26).

-- Boost schedules (items 1 and 2): versioned, append-only. The schedule in force at hour H is the one with
-- the latest effective_from at or before H (the highest version among equals). With none, everything is 100%
-- (the seed's economy). Every percentage is a whole multiple of 10 from 100 to 300, so every hourly credit
-- stays a whole number of units (docs/decisions.md "Boosts").
create table boost_schedules (
  version          serial primary key,
  effective_from   timestamptz not null check (effective_from = date_trunc('hour', effective_from)),
  common_percent   smallint not null check (common_percent between 100 and 300 and common_percent % 10 = 0),
  rare_percent     smallint not null check (rare_percent between 100 and 300 and rare_percent % 10 = 0),
  epic_percent     smallint not null check (epic_percent between 100 and 300 and epic_percent % 10 = 0),
  legendary_percent smallint not null check (legendary_percent between 100 and 300 and legendary_percent % 10 = 0),
  -- [{ "days": n, "percent": p }], ascending days (checked by the application, which alone writes it).
  tenure           jsonb not null default '[]'::jsonb check (jsonb_typeof(tenure) = 'array'),
  cap_percent      smallint not null check (cap_percent between 100 and 300 and cap_percent % 10 = 0),
  created_by       text not null,
  created_at       timestamptz not null,
  check (effective_from >= created_at)
);
create index boost_schedules_in_force on boost_schedules (effective_from desc, version desc);
revoke update, delete, truncate on boost_schedules from spooks_runtime;

-- A stake carries what its accrual needs, so the hourly statement reads stakes alone (no join with the
-- catalogue): its item's collection and rarity at the stake's start, and where its tenure counts from (its
-- own start, or for a stake reopened after a reorg, the start of the stake it continues).
alter table stakes
  add column collection text,
  add column rarity text,
  add column tenure_from timestamptz;

create function stakes_fill_accrual_facts() returns trigger language plpgsql as $$
begin
  select i.collection, i.rarity into new.collection, new.rarity from items i where i.id = new.item_id;
  if new.tenure_from is null then
    new.tenure_from := coalesce(
      (select s.tenure_from from stakes s where s.id = new.reopened_from),
      new.started_at);
  end if;
  return new;
end $$;
create trigger stakes_accrual_facts before insert on stakes
  for each row execute function stakes_fill_accrual_facts();

update stakes s set collection = i.collection, rarity = i.rarity from items i where i.id = s.item_id;
-- Oldest first, so a reopened stake finds the tenure of the stake it continues already set.
do $$
declare r record;
begin
  for r in select id, reopened_from, started_at from stakes order by id loop
    update stakes set tenure_from = coalesce((select p.tenure_from from stakes p where p.id = r.reopened_from), r.started_at)
    where id = r.id;
  end loop;
end $$;
alter table stakes
  alter column collection set not null,
  alter column rarity set not null,
  alter column tenure_from set not null,
  add constraint stakes_rarity_known check (rarity in ('Common', 'Rare', 'Epic', 'Legendary')),
  add constraint stakes_tenure_not_after_start check (tenure_from <= started_at);

-- An accrual records the schedule it was computed with and the sums of its items' percentages: the rarity
-- percentages, and the combined (rarity × tenure, capped) ones. Its amount is item_hour_units × that sum / 100.
alter table points_ledger
  add column boost_version integer references boost_schedules (version),
  add column rarity_percent_sum bigint check (rarity_percent_sum >= 0),
  add column boost_percent_sum bigint check (boost_percent_sum >= 0);
alter table points_ledger drop constraint points_ledger_accrual_explained;
alter table points_ledger add constraint points_ledger_accrual_explained check (
  kind <> 'accrual' or details_source = 'unknown' or (
    staked_spooks is not null and staked_spook_society is not null and tier is not null and item_hour_units is not null
    and case when boost_percent_sum is null
          then amount = (staked_spooks + staked_spook_society)::int8 * item_hour_units
          else amount * 100 = item_hour_units::int8 * boost_percent_sum
               and rarity_percent_sum is not null
               and boost_percent_sum between 100 * (staked_spooks + staked_spook_society)::int8
                                         and 300 * (staked_spooks + staked_spook_society)::int8
        end));

-- Votes that can change, and quorum (item 4), frozen into the proposal at creation.
alter table proposals
  add column allow_vote_change boolean not null default false,
  add column quorum_kind text check (quorum_kind in ('power', 'percent')),
  add column quorum_value integer check (quorum_value >= 1),
  add constraint proposals_quorum_whole check ((quorum_kind is null) = (quorum_value is null)
    and (quorum_kind is distinct from 'percent' or quorum_value <= 100));

create function proposals_rules_are_final() returns trigger language plpgsql as $$
begin
  if (new.allow_vote_change, new.quorum_kind, new.quorum_value) is distinct from (old.allow_vote_change, old.quorum_kind, old.quorum_value) then
    raise exception 'proposal %: whether votes can change and its quorum never change', old.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger proposals_rules_final before update on proposals
  for each row execute function proposals_rules_are_final();

-- Every vote is kept; a replaced one names the vote that replaced it (checked at commit, so a vote can name
-- the one being written in the same transaction). One current vote per wallet. signed_at is the timestamp
-- its signed message carries: the later one wins (equal: the higher SHA-256 of the signature).
alter table votes
  add column signed_at timestamptz,
  add column superseded_by integer references votes (id) on delete cascade deferrable initially deferred;
update votes set signed_at = coalesce(
  (substring(message from 'Timestamp: (\d{4}-\d\d-\d\dT[0-9:.]+Z)$'))::timestamptz, voted_at);
alter table votes alter column signed_at set not null;
-- A vote written without it (by hand, by an older writer) takes the one its message carries, else its time.
create function votes_fill_signed_at() returns trigger language plpgsql as $$
begin
  if new.signed_at is null then
    new.signed_at := coalesce(
      (substring(new.message from 'Timestamp: (\d{4}-\d\d-\d\dT[0-9:.]+Z)$'))::timestamptz, new.voted_at);
  end if;
  return new;
end $$;
create trigger votes_signed_at before insert on votes for each row execute function votes_fill_signed_at();
alter table votes add constraint votes_not_superseded_by_itself check (superseded_by is null or superseded_by <> id);
alter table votes drop constraint votes_proposal_id_address_key;
create unique index votes_one_current_per_wallet on votes (proposal_id, address) where superseded_by is null;
create index votes_by_superseded on votes (superseded_by) where superseded_by is not null;
