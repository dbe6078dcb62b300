-- A vote's public-log entry built in the trigger's own statement (docs/decisions.md "A vote's entry, inlined"). No
-- entry's bytes change.
--
-- `log_vote_entry(kind, id)` reads its vote with a FROM clause, so PostgreSQL cannot inline it: the trigger called
-- it once per vote, and each call planned its body again (0.7 ms of a vote's 1.1 ms in the log's triggers, measured
-- with track_functions). `log_vote_entry_of` holds the entry's one definition as a single expression, which the
-- planner inlines into the statement that calls it (planned once a session, as the stake entries are since 0080).
-- The trigger still reads each vote from the table, not from the transition table: the vote-change triggers may
-- have set a new vote's `superseded_by` after its insert.

create function log_vote_entry_of(kind text, id integer, address text, voted_at timestamptz, message text, option_id integer,
                                  proposal_id integer, signature text, signed_at timestamptz, staked_at_start text[],
                                  superseded_by integer, supersedes integer, weight integer) returns text
  language sql stable as $$
  select '{"address":' || log_str(address) || ',"at":' || log_iso(voted_at) || ',"id":' || id
    || ',"message":' || log_str(message) || ',"option":' || option_id || ',"proposal":' || proposal_id
    || ',"signature":' || log_str(signature) || ',"signedAt":' || log_iso(signed_at)
    || ',"stakedAtStart":' || log_texts(staked_at_start) || ',"supersededBy":' || log_int(superseded_by)
    || ',"supersedes":' || log_int(supersedes)
    || ',"type":' || log_str(kind) || ',"weight":' || weight || '}'
$$;

create or replace function log_vote_entry(kind text, id integer) returns text language sql stable as $$
  select log_vote_entry_of(kind, v.id, v.address, v.voted_at, v.message, v.option_id, v.proposal_id, v.signature, v.signed_at,
                           v.staked_at_start, v.superseded_by,
                           (select max(o.id) from votes o where o.superseded_by = v.id and o.id <> v.id), v.weight)
  from votes v where v.id = log_vote_entry.id
$$;

create or replace function log_votes() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  perform log_write_batch('votes', array_agg(v.id), array_agg(
    log_vote_entry_of('vote', v.id, v.address, v.voted_at, v.message, v.option_id, v.proposal_id, v.signature, v.signed_at,
                      v.staked_at_start, v.superseded_by,
                      -- The newest older vote this one replaced (a subquery, not a function: planned with the statement).
                      (select max(o.id) from votes o where o.superseded_by = v.id and o.id <> v.id), v.weight)))
  from log_new_rows n join votes v on v.id = n.id;
  return null;
end $$;
