-- The public, append-only log (issue 34; docs/transparency.md). Every row that makes a number (ledger rows,
-- stakes, signed stake and entry messages, votes, giveaways' commitment, close and draw, claims, boost
-- schedules, the audit trail) gets its entry, canonical JSON (RFC 8785), in the statement that writes the
-- row: triggers with transition tables, whatever the path (web, indexer, CLI, psql as the runtime role).
--
-- Storage: one row per statement (`log_batches`): its entries as a tlog-tiles bundle (each a big-endian
-- uint16 length, then its bytes), or, for an accrual hour, only what differs between its entries; and which
-- source rows they are about. Indexes are given at commit by a
-- deferred trigger, from the one counter row `log_head`: gapless, in commit order, and held only for the
-- instant of the commit. Leaf hashes, tiles and signed checkpoints are made after the commit by the
-- integrator (db/queries/log.server.ts), as Tessera does.

-- Entries ---------------------------------------------------------------------------------------------
create table log_batches (
  id           bigserial primary key,
  -- What the entries are about: a table ('points_ledger', 'stakes', 'votes'…), an event of one
  -- ('stakes.end', 'giveaways.close', 'giveaways.draw'), or 'genesis'.
  source       text not null,
  -- The source rows' ids, ascending, one entry each: [first_row, last_row] less `skipped`.
  first_row    bigint not null,
  last_row     bigint not null,
  skipped      bigint[],
  entry_count  integer not null check (entry_count >= 1),
  -- The entries. Without a template: a tlog-tiles bundle (each entry a big-endian uint16 length, then its
  -- bytes). With one (an accrual hour's 100,000 entries differ only in a few numbers and the address): each
  -- entry's values joined by U+001F, entries joined by U+001E, and entry = template[1] || value 1 ||
  -- template[2] || … || value k || template[k + 1], where value `template_id_slot` is the entry's row id (the
  -- batch's rows in order: first_row … last_row less skipped), not kept. A value is a JSON number, string or
  -- null, which never holds a raw control character. Readers rebuild the same bytes (db/queries/log.server.ts).
  template     text[] check (cardinality(template) >= 2),
  template_id_slot smallint check (template_id_slot >= 1 and template_id_slot < cardinality(template)),
  bundle       bytea not null,
  -- Set once, at commit.
  first_index  bigint unique check (first_index >= 0),
  check (last_row >= first_row)
);
-- Uncompressed out of line: an entry tile is read as a slice of its batch, not by inflating all of it.
alter table log_batches alter column bundle set storage external;
create index log_batches_by_source_row on log_batches (source, last_row);

create table log_head (
  only_row  boolean primary key default true check (only_row),
  size      bigint not null default 0 check (size >= 0)
);
insert into log_head default values;

-- An entry longer than a frame's uint16 length allows (every batch's longest is checked).
create function log_entry_too_large(bytes integer) returns boolean language plpgsql volatile as $$
begin
  raise exception 'a log entry is at most 65535 bytes (this one: %)', bytes using errcode = 'program_limit_exceeded';
end $$;

-- JSON pieces as RFC 8785 writes them: a timestamptz as JavaScript's toISOString, a text as JSON.stringify
-- (PostgreSQL escapes exactly the same characters), null as null. Plain SQL, one expression, and no stricter
-- than what they call (to_json and to_char are stable): the planner inlines them, so a row's entry is built
-- without a function call per field.
create function log_iso(t timestamptz) returns text language sql stable as $$
  select coalesce(to_json(to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null')
$$;
create function log_str(t text) returns text language sql stable as $$
  select coalesce(to_json(t)::text, 'null')
$$;
create function log_int(n bigint) returns text language sql immutable as $$
  select coalesce(n::text, 'null')
$$;
create function log_int(n integer) returns text language sql immutable as $$
  select coalesce(n::text, 'null')
$$;
create function log_texts(a text[]) returns text language sql stable as $$
  select coalesce(array_to_json(a)::text, 'null')
$$;

-- A number as ECMAScript's Number::toString writes the double nearest to it (RFC 8785 §3.2.2.3).
create function log_number(n numeric) returns text language plpgsql immutable set extra_float_digits = 1 as $$
declare
  d float8 := n::float8;
  s text := ltrim(abs(d)::text, '-');
  mantissa text := split_part(s, 'e', 1);
  exponent int := coalesce(nullif(split_part(s, 'e', 2), '')::int, 0);
  int_part text := split_part(mantissa, '.', 1);
  digits text := int_part || split_part(mantissa, '.', 2);
  point int := length(int_part) + exponent;
  k int;
  sign text := case when d < 0 then '-' else '' end;
begin
  if d = 0 then return '0'; end if;
  while left(digits, 1) = '0' loop digits := substr(digits, 2); point := point - 1; end loop;
  digits := rtrim(digits, '0');
  k := length(digits);
  if k <= point and point <= 21 then return sign || digits || repeat('0', point - k); end if;
  if 0 < point and point <= 21 then return sign || left(digits, point) || '.' || substr(digits, point + 1); end if;
  if -6 < point and point <= 0 then return sign || '0.' || repeat('0', -point) || digits; end if;
  return sign || left(digits, 1) || case when k > 1 then '.' || substr(digits, 2) else '' end
    || 'e' || case when point - 1 < 0 then '-' else '+' end || abs(point - 1)::text;
end $$;

-- RFC 8785 sorts keys by UTF-16 code units: code point order, except that U+E000..U+FFFF come after every
-- supplementary character. Prefixing those with U+10FFFF makes the C collation's order that order.
create function log_key_order(key text) returns text language sql immutable as $$
  select regexp_replace(key, '([\uE000-\uFFFF])', U&'\+10FFFF' || '\1', 'g') collate "C"
$$;

-- Any jsonb value as canonical JSON (RFC 8785): for the rows serialised by their columns (audit, boosts).
create function log_canonical(value jsonb) returns text language plpgsql immutable as $$
declare
  kind text := jsonb_typeof(value);
  out text := '';
  item record;
begin
  if kind = 'object' then
    for item in select key, val from jsonb_each(value) as e(key, val) order by log_key_order(key) loop
      out := out || case when out = '' then '' else ',' end || to_json(item.key)::text || ':' || log_canonical(item.val);
    end loop;
    return '{' || out || '}';
  elsif kind = 'array' then
    return '[' || coalesce((select string_agg(log_canonical(e), ',' order by n) from jsonb_array_elements(value) with ordinality as a(e, n)), '') || ']';
  elsif kind = 'string' then
    return to_json(value #>> '{}')::text;
  elsif kind = 'number' then
    return log_number((value #>> '{}')::numeric);
  else
    return value::text;
  end if;
end $$;

-- The transaction's first batch, so a request can answer where its entries are (db/queries/log.server.ts).
create function log_note_batch(batch bigint) returns void language sql volatile as $$
  select case when batch is not null and coalesce(current_setting('spooks.log_first_batch', true), '') = ''
              then set_config('spooks.log_first_batch', batch::text, true) end
$$;

-- At commit: the batch takes the next indexes. The counter row is locked for the commit's instant only.
create function log_sequence_batch() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
declare first bigint;
begin
  update log_head set size = size + new.entry_count returning size - new.entry_count into first;
  update log_batches set first_index = first where id = new.id;
  return null;
end $$;
create constraint trigger log_batches_sequenced after insert on log_batches
  deferrable initially deferred for each row execute function log_sequence_batch();

-- Batches are final: only the sequencing sets first_index, once. An UPDATE that names any other column is
-- refused outright (`update of`: no comparison of a batch's megabytes at every commit).
create function log_batches_are_final() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and tg_nargs = 1 and tg_argv[0] = 'sequencing' and old.first_index is null and new.first_index is not null then
    return new;
  end if;
  raise exception 'the public log is append-only' using errcode = 'check_violation';
end $$;
create trigger log_batches_final
  before update of id, source, first_row, last_row, skipped, entry_count, template, template_id_slot, bundle or delete on log_batches
  for each row execute function log_batches_are_final();
create trigger log_batches_sequencing before update of first_index on log_batches
  for each row execute function log_batches_are_final('sequencing');
create trigger log_batches_no_truncate before truncate on log_batches
  for each statement execute function log_batches_are_final();
create trigger log_head_no_truncate before truncate on log_head
  for each statement execute function log_batches_are_final();

-- One batch: entries about `batch_source` rows `ids` (any order), written for the calling trigger. Ids of the
-- range that are not the batch's (another transaction's, or rows left out) are listed as skipped. Each entry is
-- framed: its length as a big-endian uint16, then its UTF-8 bytes. Nothing when there are none. Only the
-- triggers' functions (the owner's) may call it: the runtime role cannot write an entry by itself.
create function log_write_batch(batch_source text, ids bigint[], entries text[]) returns bigint language plpgsql volatile
  security definer set search_path = public, pg_temp as $$
declare
  n integer := coalesce(cardinality(ids), 0);
  lo bigint;
  hi bigint;
  longest integer;
  batch bigint;
begin
  if n = 0 then return null; end if;
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
  perform log_note_batch(batch);
  return batch;
end $$;
revoke execute on function log_write_batch(text, bigint[], text[]) from public;

-- The statement that writes a batch kept as a template and each entry's values (an accrual hour's): one pass
-- over `entries_sql`, which selects (id, entry, fits) from the calling trigger's transition table (which only
-- the trigger function's own EXECUTE sees), entry being the entry's values but its id joined by U+001F
-- (`offset 0` keeps the planner from building a row's values once per use); they are joined in the order the
-- rows were written, and the batch is written only if that is id order (`sorted` false: comparing the ids alone
-- with their sorted list costs less than sorting the values), or joined in id order by the aggregate (`sorted`).
-- `template_sql` answers the template (text[]), whose value `id_slot` is the row's id. Written only if every
-- row fits the template; ids are read again, without their values, only when the range has gaps.
create function log_template_batch_sql(source text, entries_sql text, template_sql text, id_slot integer, sorted boolean)
  returns text language sql immutable as $$
  select format($q$
    with r as (
      select min(id) as lo, max(id) as hi, count(*)::int as n, max(octet_length(entry)) as longest,
             bool_and(fits) and %5$s as fits, convert_to(string_agg(entry, E'\x1e' %6$s), 'UTF8') as bundle
      from (%1$s offset 0) e),
    t as (select (%3$s) as template)
    insert into log_batches (source, first_row, last_row, skipped, entry_count, template, template_id_slot, bundle)
    select %2$L, r.lo, r.hi,
           case when r.hi - r.lo + 1 = r.n then null
                else array(select g from generate_series(r.lo, r.hi) g except all select id from (%1$s) ids order by 1) end,
           r.n, t.template, %4$s, r.bundle
    from r, t
    where r.n > 0 and r.fits
      and (r.longest + 20 - (cardinality(t.template) - 3) + octet_length(array_to_string(t.template, '')) <= 65535
           or log_entry_too_large(r.longest + 20 - (cardinality(t.template) - 3) + octet_length(array_to_string(t.template, ''))))
    returning id$q$, entries_sql, source, template_sql, id_slot,
    case when sorted then 'true' else 'array_agg(id) = array_agg(id order by id)' end, case when sorted then 'order by id' else '' end)
$$;

-- The message a signed action of this transaction carries (stakes and entries name it by its SHA-256).
create function log_signed() returns text language sql stable as $$
  select log_str(nullif(current_setting('spooks.log_signed', true), ''))
$$;

-- The triggers' functions below are plain SQL statements (planned once a session), each building its rows'
-- entries and handing them to log_write_batch; a statement that wrote no row writes no batch.

-- Ledger rows: accruals (an hour's 100,000 in one statement) and every other kind. An accrual statement's
-- rows share their instant, hour and boost schedule: the batch keeps the entries' common text once (the
-- template, with those in it) and, per entry, its values. Any other statement's entries are written in full.
create function log_points_ledger() returns trigger language plpgsql security definer
  set search_path = public, pg_temp set work_mem = '64MB' as $$
declare
  batch bigint;
  sorted boolean;
begin
  if (select count(*) from (select from log_new_rows where kind = 'accrual' limit 2) accruals) = 2 then
    -- Values: address, amount, boostPercentSum, (id: value 4, not kept), rarityPercentSum, stakedSpookSociety, stakedSpooks.
    -- Written in order (one INSERT's rows are), else sorted.
    foreach sorted in array array[false, true] loop
      execute log_template_batch_sql('points_ledger', $q$
        select n.id, n.kind = 'accrual' and n.created_at = (select created_at from log_new_rows limit 1)
                     and n.accrual_hour = (select accrual_hour from log_new_rows limit 1)
                     and n.boost_version is not distinct from (select boost_version from log_new_rows limit 1) as fits,
          concat_ws(E'\x1f', log_str(n.address), n.amount, log_int(n.boost_percent_sum), log_int(n.rarity_percent_sum),
                    log_int(n.staked_spook_society), log_int(n.staked_spooks)) as entry
        from log_new_rows n$q$, $q$
        select array['{"address":', ',"amount":', ',"at":' || log_iso(created_at) || ',"boostPercentSum":',
                     ',"boostVersion":' || log_int(boost_version) || ',"hour":' || log_iso(accrual_hour) || ',"id":',
                     ',"kind":"accrual","rarityPercentSum":', ',"stakedSpookSociety":', ',"stakedSpooks":', ',"type":"ledger"}']
        from log_new_rows limit 1$q$, 4, sorted) into batch;
      if batch is not null then
        perform log_note_batch(batch);
        return null;
      end if;
    end loop;
  end if;
  perform log_write_batch('points_ledger', array_agg(n.id), array_agg(case when n.kind = 'accrual' then
      '{"address":' || log_str(n.address) || ',"amount":' || n.amount || ',"at":' || log_iso(n.created_at)
      || ',"boostPercentSum":' || log_int(n.boost_percent_sum) || ',"boostVersion":' || log_int(n.boost_version)
      || ',"hour":' || log_iso(n.accrual_hour) || ',"id":' || n.id || ',"kind":"accrual","rarityPercentSum":' || log_int(n.rarity_percent_sum)
      || ',"stakedSpookSociety":' || log_int(n.staked_spook_society) || ',"stakedSpooks":' || log_int(n.staked_spooks) || ',"type":"ledger"}'
    else
      '{"actor":' || log_str(n.actor) || ',"address":' || log_str(n.address) || ',"amount":' || n.amount || ',"at":' || log_iso(n.created_at)
      || ',"description":' || log_str(n.description) || ',"giveaway":' || log_int(n.giveaway_id) || ',"id":' || n.id
      || ',"kind":' || log_str(n.kind) || ',"reference":' || log_str(n.reference)
      || ',"signed":' || case when n.kind = 'giveaway_entry' then log_signed() else 'null' end
      || ',"tickets":' || log_int(n.tickets) || ',"type":"ledger"}'
    end))
  from log_new_rows n;
  return null;
end $$;

-- Stakes: a start (with the signed message's SHA-256 when a wallet signed it), an end, another change, a removal.
create function log_stake_entry(kind text, at timestamptz, signed text, id bigint, address text, item_id integer, collection text,
                                rarity text, started_at timestamptz, tenure_from timestamptz, ended_at timestamptz,
                                end_reason text, reopened_from bigint) returns text language sql stable as $$
  select '{"address":' || log_str(address) || ',"at":' || log_iso(at) || ',"collection":' || log_str(collection)
    || ',"endReason":' || log_str(end_reason) || ',"endedAt":' || log_iso(ended_at) || ',"id":' || id
    || ',"item":' || log_str((select i.inscription_id from items i where i.id = item_id))
    || ',"rarity":' || log_str(rarity) || ',"reopenedFrom":' || log_int(reopened_from)
    || ',"signed":' || signed || ',"startedAt":' || log_iso(started_at) || ',"tenureFrom":' || log_iso(tenure_from)
    || ',"type":' || log_str(kind) || '}'
$$;

create function log_stakes_inserted() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('stakes', array_agg(n.id), array_agg(
    log_stake_entry('stake', n.started_at, log_signed(), n.id, n.address, n.item_id, n.collection, n.rarity,
                    n.started_at, n.tenure_from, n.ended_at, n.end_reason, n.reopened_from)))
  from log_new_rows n;
  return null;
end $$;

create function log_stakes_updated() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('stakes.change', array_agg(n.id), array_agg(
    log_stake_entry(case when o.ended_at is null and n.ended_at is not null then 'unstake' else 'stake.change' end,
                    coalesce(n.ended_at, now()),
                    case when n.end_reason = 'unstaked' and o.ended_at is null then log_signed() else 'null' end,
                    n.id, n.address, n.item_id, n.collection, n.rarity,
                    n.started_at, n.tenure_from, n.ended_at, n.end_reason, n.reopened_from)))
  from log_new_rows n join log_old_rows o on o.id = n.id
  where (n.address, n.item_id, n.started_at, n.ended_at, n.end_reason, n.reopened_from)
        is distinct from (o.address, o.item_id, o.started_at, o.ended_at, o.end_reason, o.reopened_from);
  return null;
end $$;

create function log_stakes_deleted() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('stakes.delete', array_agg(o.id), array_agg(
    log_stake_entry('stake.delete', now(), 'null', o.id, o.address, o.item_id, o.collection, o.rarity,
                    o.started_at, o.tenure_from, o.ended_at, o.end_reason, o.reopened_from)))
  from log_old_rows o;
  return null;
end $$;

-- Signed stake, unstake and entry messages, once each (stakes and entry rows name them by SHA-256). These rows
-- have no id: the batch counts them 1..n.
create function log_used_signatures() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
declare last_signed text;
begin
  select message_sha256 into last_signed from log_new_rows
  where action in ('stake', 'unstake', 'stake-bulk', 'unstake-bulk', 'giveaway-entry') order by used_at desc limit 1;
  if last_signed is null then return null; end if;
  perform set_config('spooks.log_signed', last_signed, true);
  perform log_write_batch('used_signatures', array_agg(s.k), array_agg(s.entry))
  from (select (row_number() over (order by used_at, address))::bigint as k,
          '{"action":' || log_str(action) || ',"address":' || log_str(address) || ',"at":' || log_iso(used_at)
          || ',"message":' || log_str(message) || ',"signature":' || log_str(signature) || ',"type":"signed"}' as entry
        from log_new_rows where action in ('stake', 'unstake', 'stake-bulk', 'unstake-bulk', 'giveaway-entry')) s;
  return null;
end $$;

-- Votes: the signed message and signature, the items that made its power, which vote it replaced (or, cast
-- late, which vote replaces it).
create function log_vote_entry(kind text, id integer) returns text language sql stable as $$
  select '{"address":' || log_str(v.address) || ',"at":' || log_iso(v.voted_at) || ',"id":' || v.id
    || ',"message":' || log_str(v.message) || ',"option":' || v.option_id || ',"proposal":' || v.proposal_id
    || ',"signature":' || log_str(v.signature) || ',"signedAt":' || log_iso(v.signed_at)
    || ',"stakedAtStart":' || log_texts(v.staked_at_start) || ',"supersededBy":' || log_int(v.superseded_by)
    || ',"supersedes":' || log_int((select max(o.id) from votes o where o.superseded_by = v.id and o.id <> v.id))
    || ',"type":' || log_str(kind) || ',"weight":' || v.weight || '}'
  from votes v where v.id = log_vote_entry.id
$$;

create function log_votes() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('votes', array_agg(n.id), array_agg(log_vote_entry('vote', n.id))) from log_new_rows n;
  return null;
end $$;

-- Giveaways: the commitment at creation (never the seed); the close (how many entries froze, and the
-- SHA-256 of their canonical list); the draw (the block, the seed revealed, the winners in draw order).
create function log_giveaway_entry(kind text, id integer) returns text language sql stable as $$
  select '{"at":' || log_iso(g.created_at) || ',"commitment":' || log_str(g.draw_commitment)
    || ',"drawVersion":' || g.draw_version || ',"endDate":' || log_iso(g.end_date) || ',"giveaway":' || g.id
    || ',"pointsCost":' || g.points_cost || ',"title":' || log_str(g.title) || ',"type":' || log_str(kind) || ',"winners":' || g.winners || '}'
  from giveaways g where g.id = log_giveaway_entry.id
$$;

create function log_frozen_entries(giveaway integer) returns text language sql stable as $$
  select '[' || coalesce(string_agg('{"address":' || log_str(address) || ',"tickets":' || tickets || '}', ',' order by ordinal), '') || ']'
  from giveaway_draw_entries where giveaway_id = giveaway
$$;

create function log_giveaway_close(id integer) returns text language sql stable as $$
  select '{"at":' || log_iso(g.closed_at) || ',"blockHeight":' || g.draw_block_height
    || ',"entries":' || (select count(*) from giveaway_draw_entries d where d.giveaway_id = g.id)
    || ',"entriesSha256":' || log_str(encode(sha256(convert_to(log_frozen_entries(g.id), 'UTF8')), 'hex'))
    || ',"giveaway":' || g.id
    || ',"tickets":' || (select coalesce(sum(tickets), 0) from giveaway_draw_entries d where d.giveaway_id = g.id)
    || ',"type":"giveaway.close"}'
  from giveaways g where g.id = log_giveaway_close.id
$$;

create function log_giveaway_winners(id integer) returns text language sql stable as $$
  select case when g.draw_version = 2
           then coalesce((select array_to_json(array_agg(w.address order by w.k))::text from giveaway_winners w where w.giveaway_id = g.id), '[]')
           else coalesce(array_to_json(array_remove(array[g.winner_address], null))::text, '[]') end
  from giveaways g where g.id = log_giveaway_winners.id
$$;

create function log_giveaway_draw(id integer) returns text language sql stable as $$
  select '{"at":' || log_iso(g.drawn_at) || ',"blockHash":' || log_str(g.draw_block_hash) || ',"blockHeight":' || log_int(g.draw_block_height)
    || ',"commitment":' || log_str(g.draw_commitment) || ',"giveaway":' || g.id || ',"seed":' || log_str(g.draw_seed)
    || ',"type":"giveaway.draw","version":' || g.draw_version || ',"winners":' || log_giveaway_winners(g.id) || '}'
  from giveaways g where g.id = log_giveaway_draw.id
$$;

create function log_giveaways_inserted() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('giveaways', array_agg(n.id), array_agg(log_giveaway_entry('giveaway', n.id))) from log_new_rows n;
  return null;
end $$;

create function log_giveaways_updated() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('giveaways.close', array_agg(n.id), array_agg(log_giveaway_close(n.id)))
  from log_new_rows n join log_old_rows o on o.id = n.id
  where o.draw_block_height is null and n.draw_block_height is not null;
  perform log_write_batch('giveaways.draw', array_agg(n.id), array_agg(log_giveaway_draw(n.id)))
  from log_new_rows n join log_old_rows o on o.id = n.id
  where o.drawn_at is null and n.drawn_at is not null;
  return null;
end $$;

-- Claims: who claimed which prize, with the signature and the SHA-256 of the signed message (the message
-- itself holds the winner's contact, which stays private).
create function log_claims() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('giveaway_claims', array_agg(n.id), array_agg(
    '{"address":' || log_str(n.address) || ',"at":' || log_iso(n.claimed_at) || ',"giveaway":' || n.giveaway_id || ',"id":' || n.id
    || ',"messageSha256":' || log_str(encode(sha256(convert_to(n.message, 'UTF8')), 'hex'))
    || ',"signature":' || log_str(n.signature) || ',"type":"claim"}'))
  from log_new_rows n;
  return null;
end $$;

-- Rows serialised by their columns (a column added later is logged by itself): boost schedules, and the
-- audit trail as it is stored (its texts were redacted when written), less the sign-in's client address.
create function log_boost_schedules() returns trigger language plpgsql security definer
  set search_path = public, pg_temp set timezone = 'UTC' as $$
begin
  perform log_write_batch('boost_schedules', array_agg(n.version::bigint), array_agg(
    log_canonical((to_jsonb(n) - 'created_at') || jsonb_build_object('type', 'boost_schedule', 'at', log_iso(n.created_at)::jsonb))))
  from log_new_rows n;
  return null;
end $$;

create function log_audit() returns trigger language plpgsql security definer
  set search_path = public, pg_temp set timezone = 'UTC' as $$
begin
  perform log_write_batch('audit_log', array_agg(n.id), array_agg(
    log_canonical((to_jsonb(n) - 'created_at' - 'details')
      || jsonb_build_object('type', 'audit', 'at', log_iso(n.created_at)::jsonb, 'details', n.details - 'ip'))))
  from log_new_rows n;
  return null;
end $$;

-- The triggers: after each statement, with its rows. (A trigger with transition tables has one event.)
create trigger log_points_ledger after insert on points_ledger
  referencing new table as log_new_rows for each statement execute function log_points_ledger();
create trigger log_stakes_inserted after insert on stakes
  referencing new table as log_new_rows for each statement execute function log_stakes_inserted();
create trigger log_stakes_updated after update on stakes
  referencing old table as log_old_rows new table as log_new_rows for each statement execute function log_stakes_updated();
create trigger log_stakes_deleted after delete on stakes
  referencing old table as log_old_rows for each statement execute function log_stakes_deleted();
create trigger log_used_signatures after insert on used_signatures
  referencing new table as log_new_rows for each statement execute function log_used_signatures();
create trigger log_votes after insert on votes
  referencing new table as log_new_rows for each statement execute function log_votes();
create trigger log_giveaways_inserted after insert on giveaways
  referencing new table as log_new_rows for each statement execute function log_giveaways_inserted();
create trigger log_giveaways_updated after update on giveaways
  referencing old table as log_old_rows new table as log_new_rows for each statement execute function log_giveaways_updated();
create trigger log_claims after insert on giveaway_claims
  referencing new table as log_new_rows for each statement execute function log_claims();
create trigger log_boost_schedules after insert on boost_schedules
  referencing new table as log_new_rows for each statement execute function log_boost_schedules();
create trigger log_audit after insert on audit_log
  referencing new table as log_new_rows for each statement execute function log_audit();

-- Integration (db/queries/log.server.ts): how far leaf hashes and tiles go, the tree's right edge, the tiles
-- (a partial tile is the last row of its level, rewritten as it grows), and every checkpoint signed.
create table log_state (
  only_row  boolean primary key default true check (only_row),
  size      bigint not null default 0 check (size >= 0),
  -- The hashes of the complete subtrees of the tree of `size`, tallest first, 32 bytes each.
  frontier  bytea not null default ''::bytea,
  -- The verifier key of the key that signs this log (set by the first process that signs): another key is
  -- refused, so a changed LOG_SIGNING_KEY never signs a second history under the same name.
  verifier_key text
);
insert into log_state default values;

create table log_tiles (
  level        smallint not null check (level >= 0 and level < 64),
  idx          bigint not null check (idx >= 0),
  hashes       bytea not null check (octet_length(hashes) between 32 and 8192 and octet_length(hashes) % 32 = 0),
  -- Level 0 only: where entry idx × 256 starts (its batch, and its byte offset in the batch's bundle).
  entry_batch  bigint,
  entry_offset integer,
  primary key (level, idx)
);

create table log_checkpoints (
  size          bigint primary key check (size >= 0),
  root          bytea not null check (octet_length(root) = 32),
  -- The signed note, and the witnesses' cosignature lines as they come.
  note          text not null,
  cosignatures  text not null default '',
  created_at    timestamptz not null
);

-- The log's signing key on PostgreSQL when LOG_SIGNING_KEY is not set: made once at start-up by the
-- owner's connection (MIGRATE_DATABASE_URL), which alone reads it; the runtime role has no grant on it.
create table log_signing_key (
  only_row    boolean primary key default true check (only_row),
  signer_key  text not null,
  created_at  timestamptz not null
);

-- The runtime role reads the log and integrates it; entries are written by the triggers' functions alone
-- (security definer), so the runtime role can neither add, change nor remove one.
revoke insert, update, delete, truncate on log_batches, log_head from spooks_runtime;
revoke delete, truncate on log_checkpoints from spooks_runtime;
revoke all on log_signing_key from spooks_runtime;

-- Genesis: a snapshot of what the database holds (every wallet's balance, the open stakes, the giveaways with
-- their entries, the proposals with their votes), so that everything after can be checked from the log alone:
-- the first entries of the log of a deployment that already has history, and of a log begun by a new key.
create function log_write_genesis() returns bigint language plpgsql volatile security definer
  set search_path = public, pg_temp as $$
begin
  return (select log_write_batch('genesis', array_agg(id), array_agg(entry)) from (
    select row_number() over (order by part, k1, k2)::bigint as id, entry from (
      select 1 as part, address as k1, 0::bigint as k2,
        '{"address":' || log_str(address) || ',"at":' || log_iso(now()) || ',"type":"genesis.balance","units":' || units || '}' as entry
      from wallet_balances where units <> 0
      union all
      select 2, '', s.id, log_stake_entry('genesis.stake', now(), 'null', s.id, s.address, s.item_id, s.collection, s.rarity,
                                          s.started_at, s.tenure_from, s.ended_at, s.end_reason, s.reopened_from)
      from stakes s where s.ended_at is null
      union all
      select 3, '', g.id,
        '{"at":' || log_iso(now()) || ',"blockHash":' || log_str(g.draw_block_hash) || ',"blockHeight":' || log_int(g.draw_block_height)
        || ',"closedAt":' || log_iso(g.closed_at) || ',"commitment":' || log_str(g.draw_commitment)
        || ',"drawVersion":' || g.draw_version || ',"drawnAt":' || log_iso(g.drawn_at) || ',"endDate":' || log_iso(g.end_date)
        || ',"giveaway":' || g.id || ',"pointsCost":' || g.points_cost
        || ',"seed":' || case when g.drawn_at is not null then log_str(g.draw_seed) else 'null' end
        || ',"title":' || log_str(g.title) || ',"type":"genesis.giveaway","winnerAddresses":'
        || case when g.drawn_at is not null then log_giveaway_winners(g.id) else '[]' end
        || ',"winners":' || g.winners || '}'
      from giveaways g
      union all
      -- Version 2 draws over one row per address (frozen at the close, or summed while open); version 1 over
      -- the entry rows in id order, so each is listed with its id.
      select 4, address || ':' || lpad(giveaway_id::text, 12, '0'), coalesce(entry, 0),
        '{"address":' || log_str(address) || ',"entry":' || log_int(entry) || ',"frozen":' || frozen || ',"giveaway":' || giveaway_id
        || ',"tickets":' || tickets || ',"type":"genesis.giveaway_entry"}'
      from (
        select giveaway_id, null::bigint as entry, address, tickets, true as frozen from giveaway_draw_entries
        union all
        select e.giveaway_id, null, e.address, sum(e.tickets), false from giveaway_entries e join giveaways g on g.id = e.giveaway_id
        where g.draw_version <> 1 and not exists (select from giveaway_draw_entries d where d.giveaway_id = e.giveaway_id)
        group by e.giveaway_id, e.address
        union all
        select e.giveaway_id, e.id, e.address, e.tickets, false from giveaway_entries e join giveaways g on g.id = e.giveaway_id
        where g.draw_version = 1
      ) entries
      union all
      select 5, '', p.id,
        '{"allowVoteChange":' || p.allow_vote_change || ',"at":' || log_iso(now()) || ',"endDate":' || log_iso(p.end_date)
        || ',"options":' || coalesce((select '[' || string_agg('{"id":' || o.id || ',"position":' || o.position || ',"text":' || log_str(o.option_text) || '}', ',' order by o.position) || ']'
                                      from proposal_options o where o.proposal_id = p.id), '[]')
        || ',"proposal":' || p.id || ',"quorumKind":' || log_str(p.quorum_kind) || ',"quorumValue":' || log_int(p.quorum_value)
        || ',"startDate":' || log_iso(p.start_date) || ',"title":' || log_str(p.title) || ',"type":"genesis.proposal"'
        || ',"voteType":' || log_str(p.vote_type) || '}'
      from proposals p
      union all
      select 6, '', v.id, log_vote_entry('genesis.vote', v.id) from votes v
    ) genesis) snapshot);
end $$;
revoke execute on function log_write_genesis() from public;

-- A new deployment's log starts empty; one with history, with its genesis snapshot.
do $$
begin
  if exists (select from points_ledger) or exists (select from stakes) or exists (select from giveaways) or exists (select from proposals) then
    perform log_write_genesis();
  end if;
end $$;

-- Key rotation (docs/transparency.md, "Key rotation"). A key never changes within a log: a new key starts a new
-- log, under a new origin, whose first entry is the old log's last checkpoint. The old log's hash tiles are
-- kept (and served under /log/previous/<n>/), so a browser or an auditor that kept a checkpoint of the old log
-- proves it consistent with that last checkpoint before trusting the new key.
create table log_previous (
  n             integer primary key check (n >= 1),
  origin        text not null,
  verifier_key  text not null,
  -- The old log's last checkpoint: the signed note and its witnesses' cosignatures.
  note          text not null,
  size          bigint not null,
  rotated_at    timestamptz not null
);
create table log_previous_tiles (
  n             integer not null references log_previous (n),
  level         smallint not null,
  idx           bigint not null,
  hashes        bytea not null,
  entry_batch   bigint,
  entry_offset  integer,
  primary key (n, level, idx)
);
-- The old log's entries, as they were: it stays readable (tlog-tiles) under /log/previous/<n>/.
create table log_previous_batches (
  n            integer not null references log_previous (n),
  id           bigint not null,
  source       text not null,
  first_row    bigint not null,
  last_row     bigint not null,
  skipped      bigint[],
  entry_count  integer not null,
  template     text[],
  template_id_slot smallint,
  bundle       bytea not null,
  first_index  bigint not null,
  primary key (n, id),
  unique (n, first_index)
);
alter table log_previous_batches alter column bundle set storage external;
revoke insert, update, delete, truncate on log_previous, log_previous_tiles, log_previous_batches from spooks_runtime;

-- Ends the log of the current key at its latest checkpoint and starts the log of `new_verifier_key`: the first
-- entry names the old log (origin, verifier key, last checkpoint, where its hash tiles are), a genesis
-- snapshot follows, and only the new key may sign from then on. Refused unless the latest checkpoint covers
-- every committed entry (stop the web and indexer processes and let the log service sign first); the counter
-- row stays locked meanwhile, so no entry commits in between. The owner's (`spooks-admin log rotate`).
create function log_rotate(new_verifier_key text) returns integer language plpgsql volatile
  set search_path = public, pg_temp as $$
declare
  head bigint;
  last record;
  old_key text;
  rotation integer;
begin
  select size into head from log_head for update;
  select size, note, cosignatures into last from log_checkpoints order by size desc limit 1;
  if last.size is distinct from head then
    raise exception 'the latest checkpoint (% entries) does not cover every committed entry (%): stop the web and indexer processes, let the log service sign, then rotate', coalesce(last.size, 0), head
      using errcode = 'object_not_in_prerequisite_state';
  end if;
  select verifier_key into old_key from log_state;
  if old_key is null then raise exception 'no key has signed this log yet: set LOG_SIGNING_KEY instead' using errcode = 'object_not_in_prerequisite_state'; end if;
  if split_part(new_verifier_key, '+', 1) = split_part(old_key, '+', 1) then
    raise exception 'the new key must name another origin than %', split_part(old_key, '+', 1) using errcode = 'invalid_parameter_value';
  end if;
  rotation := coalesce((select max(n) from log_previous), 0) + 1;
  insert into log_previous (n, origin, verifier_key, note, size, rotated_at)
    values (rotation, split_part(old_key, '+', 1), old_key, last.note || last.cosignatures, last.size, now());
  insert into log_previous_tiles (n, level, idx, hashes, entry_batch, entry_offset)
    select rotation, level, idx, hashes, entry_batch, entry_offset from log_tiles;
  insert into log_previous_batches (n, id, source, first_row, last_row, skipped, entry_count, template, template_id_slot, bundle, first_index)
    select rotation, id, source, first_row, last_row, skipped, entry_count, template, template_id_slot, bundle, first_index from log_batches;
  alter table log_batches disable trigger log_batches_final;
  delete from log_batches;
  alter table log_batches enable trigger log_batches_final;
  update log_head set size = 0;
  delete from log_tiles;
  delete from log_checkpoints;
  update log_state set size = 0, frontier = ''::bytea, verifier_key = new_verifier_key;
  perform log_write_batch('rotation', array[1::bigint], array[
    '{"at":' || log_iso(now()) || ',"previous":{"checkpoint":' || log_str(last.note || last.cosignatures)
    || ',"origin":' || log_str(split_part(old_key, '+', 1)) || ',"size":' || last.size
    || ',"tiles":' || log_str('/log/previous/' || rotation || '/') || ',"verifierKey":' || log_str(old_key)
    || '},"type":"log.rotation","verifierKey":' || log_str(new_verifier_key) || '}']);
  perform log_write_genesis();
  return rotation;
end $$;
revoke execute on function log_rotate(text) from public;
