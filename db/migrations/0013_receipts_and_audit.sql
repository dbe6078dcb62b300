-- Vote receipts and the audit trail (issue 18).

-- A vote keeps the inscription ids that made its power: the items its wallet had staked at the proposal's
-- start, sorted. Votes cast before this migration get them from the stake history (what their weight was
-- counted from); one whose items no longer add up to its weight (an item since removed from the catalogue)
-- keeps null rather than a list that would not explain its power.
alter table votes add column staked_at_start text[];
update votes v set staked_at_start = snapshot.ids
from (
  select v2.id, array_agg(i.inscription_id order by i.inscription_id) as ids
  from votes v2
  join proposals p on p.id = v2.proposal_id
  join stakes s on s.address = v2.address and s.started_at <= p.start_date and (s.ended_at is null or s.ended_at > p.start_date)
  join items i on i.id = s.item_id
  group by v2.id
) snapshot
where snapshot.id = v.id and cardinality(snapshot.ids) = v.weight;
alter table votes add constraint votes_staked_at_start_makes_weight
  check (staked_at_start is null or cardinality(staked_at_start) = weight);

-- The audit trail says what each change found and what it left (before → after), and is append-only like
-- the points ledger: the database refuses to change or remove a row.
alter table audit_log add column before jsonb;
alter table audit_log add column after jsonb;
create index audit_log_by_action on audit_log (action, id desc);
create index audit_log_by_actor on audit_log (actor, id desc);

create function audit_log_is_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only';
end $$;
create trigger audit_log_no_update before update or delete on audit_log
  for each row execute function audit_log_is_append_only();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_is_append_only();
