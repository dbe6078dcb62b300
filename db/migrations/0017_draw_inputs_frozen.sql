-- A draw's inputs never change once published (issue 23, items 3 and 4; DECISIONS "Draw version 2").
-- The verifier recomputes a draw from what the site publishes; these triggers make the database refuse,
-- whoever writes, every change that would let a recomputed draw still say "verified" after the fact.

-- The commitment, the seed behind it, the draw version and the number of winners are fixed at creation.
-- What the close writes (closed_at, draw_block_height) and what the draw writes (draw_block_hash, drawn_at,
-- winner_address) go from null to a value once, and never change after.
create function giveaway_draw_inputs_are_final() returns trigger language plpgsql as $$
begin
  if (new.draw_commitment, new.draw_seed, new.draw_version, new.winners)
     is distinct from (old.draw_commitment, old.draw_seed, old.draw_version, old.winners) then
    raise exception 'giveaway %: its draw commitment, seed, version and number of winners never change', old.id
      using errcode = 'check_violation';
  end if;
  if old.draw_block_height is not null
     and (new.draw_block_height, new.closed_at) is distinct from (old.draw_block_height, old.closed_at) then
    raise exception 'giveaway %: its entries closed at block %; the block and the time never change', old.id, old.draw_block_height
      using errcode = 'check_violation';
  end if;
  if old.drawn_at is not null
     and (new.drawn_at, new.draw_block_hash, new.winner_address) is distinct from (old.drawn_at, old.draw_block_hash, old.winner_address) then
    raise exception 'giveaway %: it was drawn; its block hash and winners never change', old.id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger giveaways_draw_inputs_final before update on giveaways
  for each row execute function giveaway_draw_inputs_are_final();

-- A closed or drawn giveaway is deleted only as a whole (its frozen entries and winners go with it) and
-- only with its `giveaway.delete` row in the append-only audit trail (db/queries/giveaways.server.ts
-- writes it first). Giveaway ids are never reused, so that row can only be about this giveaway.
create function giveaway_deleted_with_audit() returns trigger language plpgsql as $$
begin
  if (old.draw_block_height is not null or old.drawn_at is not null) and not exists (
    select 1 from audit_log where action = 'giveaway.delete' and target = 'giveaway:' || old.id
  ) then
    raise exception 'giveaway % is closed: it is deleted only with its giveaway.delete row in the audit trail', old.id
      using errcode = 'check_violation';
  end if;
  return old;
end $$;
create trigger giveaways_deleted_with_audit before delete on giveaways
  for each row execute function giveaway_deleted_with_audit();

-- Frozen entries and winners are written before the giveaway row records the close (resp. the draw), and
-- never after: nothing joins a frozen draw. A row goes only with its whole giveaway: the cascade of the
-- giveaway's delete runs after that row is gone, which is how it is told from a delete of the row alone.
create function giveaway_draw_row_added_before_final() returns trigger language plpgsql as $$
begin
  if exists (
    select 1 from giveaways g where g.id = new.giveaway_id
      and case when tg_table_name = 'giveaway_winners' then g.drawn_at is not null else g.draw_block_height is not null end
  ) then
    raise exception 'giveaway % is %: its % never change', new.giveaway_id,
      case when tg_table_name = 'giveaway_winners' then 'drawn' else 'closed' end,
      case when tg_table_name = 'giveaway_winners' then 'winners' else 'frozen entries' end
      using errcode = 'check_violation';
  end if;
  return new;
end $$;
create function giveaway_draw_row_goes_with_giveaway() returns trigger language plpgsql as $$
begin
  if exists (select 1 from giveaways g where g.id = old.giveaway_id) then
    raise exception 'a closed giveaway''s entries and winners cannot change: delete the giveaway as a whole'
      using errcode = 'check_violation';
  end if;
  return old;
end $$;
create function giveaway_draw_rows_not_truncated() returns trigger language plpgsql as $$
begin
  raise exception '% cannot be truncated: a closed giveaway is deleted as a whole', tg_table_name using errcode = 'check_violation';
end $$;

create trigger giveaway_draw_entries_added_before_close before insert on giveaway_draw_entries
  for each row execute function giveaway_draw_row_added_before_final();
create trigger giveaway_draw_entries_go_with_giveaway before delete on giveaway_draw_entries
  for each row execute function giveaway_draw_row_goes_with_giveaway();
create trigger giveaway_draw_entries_no_truncate before truncate on giveaway_draw_entries
  for each statement execute function giveaway_draw_rows_not_truncated();

create trigger giveaway_winners_added_before_draw before insert on giveaway_winners
  for each row execute function giveaway_draw_row_added_before_final();
create trigger giveaway_winners_go_with_giveaway before delete on giveaway_winners
  for each row execute function giveaway_draw_row_goes_with_giveaway();
create trigger giveaway_winners_no_truncate before truncate on giveaway_winners
  for each statement execute function giveaway_draw_rows_not_truncated();

-- When the highest block count seen last rose (issue 23, item 4): entries never close while the ord server
-- is stalled, i.e. its count has not risen for 10 minutes. Rows from before take their last pass's time.
alter table chain_cursor add column advanced_at timestamptz;
update chain_cursor set advanced_at = updated_at;
alter table chain_cursor alter column advanced_at set not null;
