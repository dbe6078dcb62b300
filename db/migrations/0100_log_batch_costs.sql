-- What a signed request pays for its public-log entries, about halved (issue 34, item 7: ≤ +2 ms a stake, unstake
-- or vote; docs/decisions.md "A batch of one entry"). No entry's bytes, index or order change.
--
-- Measured with track_functions and pgbench (a stake and an unstake, each with its signed message: two batches of
-- one entry a request), the log's triggers cost a request 1.85 ms before and 0.75 ms after (1-3 below):
-- 1. `log_write_batch` answered a batch of one entry as it answers an accrual hour of 100,000: it aggregated its
--    ids and entries twice through unnest (bounds and longest entry, then the bundle). A batch of one takes its
--    bounds and bundle from the entry itself (0.33 → 0.15 ms a batch). The transaction's first batch is noted in
--    its own body rather than by calling log_note_batch (which the accrual's template path still calls).
-- 2. The sequencing at commit is one statement (the counter's update feeding the batch's) instead of two.
-- 3. The trigger that lets only the sequencing set `first_index` called its function for every sequenced batch,
--    only to let it through; its WHEN clause now calls it only for an update it refuses.

create or replace function log_write_batch(batch_source text, ids bigint[], entries text[]) returns bigint language plpgsql volatile
  security definer set search_path = public, pg_temp as $$
declare
  n integer := coalesce(cardinality(ids), 0);
  lo bigint;
  hi bigint;
  longest integer;
  batch bigint;
begin
  if n = 0 then return null; end if;
  if n = 1 then
    longest := octet_length(entries[1]);
    if longest > 65535 then perform log_entry_too_large(longest); end if;
    insert into log_batches (source, first_row, last_row, entry_count, bundle)
    values (batch_source, ids[1], ids[1], 1, int2send(((longest << 16) >> 16)::int2) || convert_to(entries[1], 'UTF8'))
    returning id into batch;
  else
    select min(i), max(i), max(octet_length(e)) into lo, hi, longest from unnest(ids, entries) as u(i, e);
    if longest > 65535 then perform log_entry_too_large(longest); end if;
    insert into log_batches (source, first_row, last_row, skipped, entry_count, bundle)
    values (batch_source, lo, hi,
            case when hi - lo + 1 = n then null
                 else array(select g from generate_series(lo, hi) g except all select unnest(ids) order by 1) end,
            n,
            (select string_agg(int2send(((octet_length(e) << 16) >> 16)::int2) || convert_to(e, 'UTF8'), ''::bytea order by i)
             from unnest(ids, entries) as u(i, e)))
    returning id into batch;
  end if;
  if coalesce(current_setting('spooks.log_first_batch', true), '') = '' then
    perform set_config('spooks.log_first_batch', batch::text, true);
  end if;
  return batch;
end $$;
revoke execute on function log_write_batch(text, bigint[], text[]) from public;

create or replace function log_sequence_batch() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  with head as (update log_head set size = size + new.entry_count returning size - new.entry_count as first)
  update log_batches set first_index = head.first from head where id = new.id;
  return null;
end $$;

drop trigger log_batches_sequencing on log_batches;
create trigger log_batches_sequencing before update of first_index on log_batches
  for each row when (old.first_index is not null or new.first_index is null)
  execute function log_batches_are_final('sequencing');

-- 4. A request that answers where its entries are (withLogIndex, db/queries/log.server.ts) asked after its commit,
--    one more round trip. Its transaction now has its batches sequenced as its last statement, and reads the
--    index there: the counter row is locked from then until the commit (one round trip longer than before), the
--    indexes stay gapless and in commit order (a transaction that fails to commit gives its indexes back).
create function log_sequence_now() returns bigint language plpgsql volatile
  security definer set search_path = public, pg_temp as $$
declare first_batch bigint := nullif(current_setting('spooks.log_first_batch', true), '')::int8;
begin
  if first_batch is null then return null; end if;
  set constraints log_batches_sequenced immediate;
  return (select first_index from log_batches where id = first_batch);
end $$;
