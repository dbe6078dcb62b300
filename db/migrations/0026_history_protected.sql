-- History the app's own role cannot rewrite (issue 32, items 9, 10 and 11; docs/decisions.md "What the runtime
-- role cannot rewrite"). Everything here holds against spooks_runtime; the owner (migrations) stays trusted.

-- Giveaway deletions (item 9). A deleted giveaway's id is never used again, so its `giveaway.delete` audit row
-- can only be about it; and every deletion needs its own such row, written by the deleting transaction itself
-- (not an earlier row, not a row another deletion used). The record is the database's: written only by the
-- delete trigger (security definer), read by the app.
create table giveaway_deletions (
  giveaway_id integer primary key,
  -- The audit_log row of the deletion (no foreign key: that table is append-only, and a key would change how a
  -- TRUNCATE of it is refused).
  audit_id    bigint not null unique
);
revoke insert, update, delete, truncate on giveaway_deletions from spooks_runtime;

-- Ids deleted before this migration: the targets of giveaway.delete rows whose giveaway is gone.
insert into giveaway_deletions (giveaway_id, audit_id)
select distinct on (deleted.id) deleted.id, deleted.audit_id
from (
  select substring(a.target from '^giveaway:(\d{1,9})$')::int as id, a.id as audit_id
  from audit_log a where a.action = 'giveaway.delete' and a.target ~ '^giveaway:\d{1,9}$'
) as deleted
where not exists (select 1 from giveaways g where g.id = deleted.id)
order by deleted.id, deleted.audit_id desc;

create or replace function giveaway_deleted_with_audit() returns trigger
  language plpgsql security definer set search_path = pg_catalog, public as $$
declare
  audit_row bigint;
begin
  -- This transaction's own row (its xmin is this transaction's id), not yet used by another deletion.
  select a.id into audit_row from audit_log a
  where a.action = 'giveaway.delete' and a.target = 'giveaway:' || old.id and a.xmin = pg_current_xact_id()::xid
    and not exists (select 1 from giveaway_deletions d where d.audit_id = a.id)
  order by a.id desc limit 1;
  if audit_row is null then
    raise exception 'giveaway % is deleted only with its own giveaway.delete row in the audit trail, written in the same transaction', old.id
      using errcode = 'check_violation';
  end if;
  insert into giveaway_deletions (giveaway_id, audit_id) values (old.id, audit_row);
  return old;
end $$;

create function giveaway_id_never_reused() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and new.id <> old.id then
    raise exception 'giveaway %: a giveaway''s id never changes', old.id using errcode = 'check_violation';
  end if;
  if exists (select 1 from giveaway_deletions d where d.giveaway_id = new.id) then
    raise exception 'giveaway % was deleted: its id is never used again', new.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger giveaways_id_never_reused before insert or update of id on giveaways
  for each row execute function giveaway_id_never_reused();

-- Votes (item 10): never deleted (a proposal's delete still takes its votes: the foreign key's cascade runs as
-- the table's owner) nor truncated, and of a vote only `superseded_by` changes, from null to a newer vote of
-- the same wallet on the same proposal ("newer": castVote's rule, a later signed time, or the same time and the
-- higher SHA-256 of the signature). A vote written already replaced (arriving late) names a newer one too.
revoke update, delete, truncate on votes from spooks_runtime;
grant update (superseded_by) on votes to spooks_runtime;

create function vote_superseded_once() returns trigger language plpgsql as $$
begin
  if new.superseded_by is distinct from old.superseded_by and old.superseded_by is not null then
    raise exception 'vote %: a replaced vote stays replaced by the vote that replaced it', old.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger votes_superseded_once before update of superseded_by on votes
  for each row execute function vote_superseded_once();

-- Checked at commit, as the foreign key is: the vote replaced may name the new one before it is written.
create function vote_superseded_by_newer() returns trigger language plpgsql as $$
begin
  if new.superseded_by is null or (tg_op = 'UPDATE' and new.superseded_by is not distinct from old.superseded_by) then
    return null;
  end if;
  if not exists (
    select 1 from votes n
    where n.id = new.superseded_by and n.proposal_id = new.proposal_id and n.address = new.address
      and (n.signed_at > new.signed_at
           or (n.signed_at = new.signed_at
               and encode(sha256(convert_to(n.signature, 'UTF8')), 'hex') > encode(sha256(convert_to(new.signature, 'UTF8')), 'hex')))
  ) then
    raise exception 'vote % can only be replaced by a newer vote of the same wallet on the same proposal (not vote %)', new.id, new.superseded_by
      using errcode = 'check_violation';
  end if;
  return null;
end $$;
create constraint trigger votes_superseded_by_newer after insert or update of superseded_by on votes
  deferrable initially deferred for each row execute function vote_superseded_by_newer();

-- A vote's signed time is at most a minute after the server recorded it (item 11): a timestamp ahead of the
-- clock would win every later change of vote until the clock caught up. Votes already written are not checked.
alter table votes add constraint votes_signed_at_not_ahead check (signed_at <= voted_at + interval '1 minute') not valid;

-- Used signatures (item 10): the record that a signed message was accepted once. Never updated, deleted or
-- truncated by the app's role; housekeeping removes those no message can be replayed with any more through
-- this function, which by the database's own clock never removes one used within the last hour (a message is
-- accepted within 10 minutes of its timestamp; app/domain/retention.ts keeps them an hour).
revoke update, delete, truncate on used_signatures from spooks_runtime;

create function prune_used_signatures(before timestamptz, max_rows integer) returns integer
  language plpgsql security definer set search_path = pg_catalog, public as $$
declare
  pruned integer;
begin
  delete from used_signatures where (address, message_sha256) in (
    select address, message_sha256 from used_signatures
    where used_at < least(before, now() - interval '1 hour')
    order by used_at limit greatest(max_rows, 0));
  get diagnostics pruned = row_count;
  return pruned;
end $$;
revoke execute on function prune_used_signatures(timestamptz, integer) from public;
grant execute on function prune_used_signatures(timestamptz, integer) to spooks_runtime;
