-- Stake All of 888 items within issue 36's 50 ms (item 2; docs/decisions.md "Stake All's two lookups a row"): two
-- lookups a bulk stake or unstake paid for every item are gone. No stake's facts and no entry's bytes change.
--
-- 1. A stake that reopens no other takes its own start as its tenure at once: the lookup of the stake it would
--    continue ran for every new row, with nothing to find.
-- 2. The public log's stake entries take each item's inscription id from a join with the catalogue, once per
--    statement, instead of a subquery per row; the hash of the signed message is read once per statement.
--    `log_stake_entry` keeps its arguments (the genesis snapshot and the deleted rows' trigger call it) and builds
--    the entry with `log_stake_entry_of`, which holds the entry's one definition.

create or replace function stakes_fill_accrual_facts() returns trigger language plpgsql as $$
begin
  select i.collection, i.rarity into new.collection, new.rarity from items i where i.id = new.item_id;
  if new.tenure_from is null and new.reopened_from is null then
    new.tenure_from := new.started_at;
  elsif new.tenure_from is null then
    new.tenure_from := coalesce((select s.tenure_from from stakes s where s.id = new.reopened_from), new.started_at);
  end if;
  return new;
end $$;

create function log_stake_entry_of(kind text, at timestamptz, signed text, id bigint, address text, inscription_id text,
                                   collection text, rarity text, started_at timestamptz, tenure_from timestamptz,
                                   ended_at timestamptz, end_reason text, reopened_from bigint) returns text
  language sql stable as $$
  select '{"address":' || log_str(address) || ',"at":' || log_iso(at) || ',"collection":' || log_str(collection)
    || ',"endReason":' || log_str(end_reason) || ',"endedAt":' || log_iso(ended_at) || ',"id":' || id
    || ',"item":' || log_str(inscription_id)
    || ',"rarity":' || log_str(rarity) || ',"reopenedFrom":' || log_int(reopened_from)
    || ',"signed":' || signed || ',"startedAt":' || log_iso(started_at) || ',"tenureFrom":' || log_iso(tenure_from)
    || ',"type":' || log_str(kind) || '}'
$$;

create or replace function log_stake_entry(kind text, at timestamptz, signed text, id bigint, address text, item_id integer,
                                           collection text, rarity text, started_at timestamptz, tenure_from timestamptz,
                                           ended_at timestamptz, end_reason text, reopened_from bigint) returns text
  language sql stable as $$
  select log_stake_entry_of(kind, at, signed, id, address, (select i.inscription_id from items i where i.id = item_id),
                            collection, rarity, started_at, tenure_from, ended_at, end_reason, reopened_from)
$$;

create or replace function log_stakes_inserted() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
declare
  signed text := log_signed();
begin
  perform log_write_batch('stakes', array_agg(n.id), array_agg(
    log_stake_entry_of('stake', n.started_at, signed, n.id, n.address, i.inscription_id, n.collection, n.rarity,
                       n.started_at, n.tenure_from, n.ended_at, n.end_reason, n.reopened_from)))
  from log_new_rows n left join items i on i.id = n.item_id;
  return null;
end $$;

create or replace function log_stakes_updated() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
declare
  signed text := log_signed();
begin
  perform log_write_batch('stakes.change', array_agg(n.id), array_agg(
    log_stake_entry_of(case when o.ended_at is null and n.ended_at is not null then 'unstake' else 'stake.change' end,
                       coalesce(n.ended_at, now()),
                       case when n.end_reason = 'unstaked' and o.ended_at is null then signed else 'null' end,
                       n.id, n.address, i.inscription_id, n.collection, n.rarity,
                       n.started_at, n.tenure_from, n.ended_at, n.end_reason, n.reopened_from)))
  from log_new_rows n join log_old_rows o on o.id = n.id left join items i on i.id = n.item_id
  where (n.address, n.item_id, n.started_at, n.ended_at, n.end_reason, n.reopened_from)
        is distinct from (o.address, o.item_id, o.started_at, o.ended_at, o.end_reason, o.reopened_from);
  return null;
end $$;
