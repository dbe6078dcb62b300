-- Hot reads (issue 36, item 1; docs/decisions.md "Hot reads kept current"): the leaderboard, a wallet's rank and
-- the boost schedule in force are kept in each web process and reused for as long as nothing they depend on has
-- changed. Every change to a balance, a stake or a schedule appends to the public log in its own transaction, so
-- `log_head.size` moves with it. Two changes do not move it, and move this counter instead, whatever makes them
-- (the indexer, a test, psql): a change of ownership (not logged), and a rotation of the log (which starts its
-- size again from 0). Hot reads read both counters in the statement they answer from.
create table hot_reads_head (
  only_row  boolean primary key default true check (only_row),
  moves     bigint not null default 0
);
insert into hot_reads_head default values;

-- Only a statement that changed a row moves the counter (the indexer's compare-and-set often changes none).
-- The row lock lasts until the writer's commit: only the indexer writes ownership, and a rotation is rare.
create function hot_reads_moved() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  if tg_op = 'TRUNCATE' then
    update hot_reads_head set moves = moves + 1;
  elsif exists (select 1 from changed_rows) then
    update hot_reads_head set moves = moves + 1;
  end if;
  return null;
end $$;
-- A trigger with transition tables has one event each.
create trigger ownership_inserted_moves_hot_reads after insert on ownership
  referencing new table as changed_rows for each statement execute function hot_reads_moved();
create trigger ownership_updated_moves_hot_reads after update on ownership
  referencing new table as changed_rows for each statement execute function hot_reads_moved();
create trigger ownership_deleted_moves_hot_reads after delete on ownership
  referencing old table as changed_rows for each statement execute function hot_reads_moved();
create trigger ownership_truncated_moves_hot_reads after truncate on ownership
  for each statement execute function hot_reads_moved();
-- log_rotate (migration 0040) records each rotation here.
create trigger log_rotated_moves_hot_reads after insert on log_previous
  referencing new table as changed_rows for each statement execute function hot_reads_moved();

-- The runtime role reads the counter; only the triggers' function (the owner's) moves it.
revoke insert, update, delete, truncate on hot_reads_head from spooks_runtime;
