-- A wallet's items kept per wallet (issue 36, item 1; docs/decisions.md "A wallet's items kept per wallet").
-- `/api/wallet-doginals/{address}` answers from a wallet's ownership rows, its open stakes, the catalogue and the
-- boost schedule in force. The public log's size (the stamp of migration 0060) moves with every write anywhere, so
-- it cannot name the state of one wallet's items for long. These counters can:
-- - `wallet_marks.moves`: one wallet's own counter, moved by every statement that changes a row of its ownership
--   (the wallet that loses an item and the one that gains it) or of its stakes;
-- - `wallet_marks_shared.moves`: what every wallet's items share, moved by a change to the catalogue, to a boost
--   schedule or its cancellation, and by a truncation of ownership or stakes (which names no wallet). Its own row,
--   not hot_reads_head's: an admin saving a schedule never waits for the indexer's ownership writes to commit.
-- A web process keeps a wallet's answer for the pair it read in the statement the answer came from, and the hour
-- (the schedule in force and each tenure step change only on the hour).

create table wallet_marks (
  address text primary key,
  moves   bigint not null default 1
);

create table wallet_marks_shared (
  only_row  boolean primary key default true check (only_row),
  moves     bigint not null default 0
);
insert into wallet_marks_shared default values;

-- In address order, so two statements moving the same wallets take their row locks in one order. An item at an
-- output with no address (owner_address null) is in no wallet.
create function wallet_marks_move(addresses text[]) returns void language sql security definer
  set search_path = public, pg_temp as $$
  insert into wallet_marks as m (address)
  select distinct address from unnest(addresses) as address where address is not null order by address
  on conflict (address) do update set moves = m.moves + 1
$$;

create function wallet_marks_shared_move() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  update wallet_marks_shared set moves = moves + 1;
  return null;
end $$;

-- A trigger with transition tables has one event each; the function reads only the tables its event has, and
-- the column naming the wallet is the trigger's argument.
create function wallets_moved() returns trigger language plpgsql security definer
  set search_path = public, pg_temp as $$
begin
  if tg_op in ('INSERT', 'UPDATE') then
    execute format('select wallet_marks_move(array(select %I from new_rows))', tg_argv[0]);
  end if;
  if tg_op in ('UPDATE', 'DELETE') then
    execute format('select wallet_marks_move(array(select %I from old_rows))', tg_argv[0]);
  end if;
  return null;
end $$;

create trigger ownership_inserted_moves_wallets after insert on ownership
  referencing new table as new_rows for each statement execute function wallets_moved('owner_address');
create trigger ownership_updated_moves_wallets after update on ownership
  referencing old table as old_rows new table as new_rows for each statement execute function wallets_moved('owner_address');
create trigger ownership_deleted_moves_wallets after delete on ownership
  referencing old table as old_rows for each statement execute function wallets_moved('owner_address');
create trigger ownership_truncated_moves_shared after truncate on ownership
  for each statement execute function wallet_marks_shared_move();

create trigger stakes_inserted_move_wallets after insert on stakes
  referencing new table as new_rows for each statement execute function wallets_moved('address');
create trigger stakes_updated_move_wallets after update on stakes
  referencing old table as old_rows new table as new_rows for each statement execute function wallets_moved('address');
create trigger stakes_deleted_move_wallets after delete on stakes
  referencing old table as old_rows for each statement execute function wallets_moved('address');
create trigger stakes_truncated_move_shared after truncate on stakes
  for each statement execute function wallet_marks_shared_move();

create trigger items_move_shared after insert or update or delete or truncate on items
  for each statement execute function wallet_marks_shared_move();
create trigger boost_schedules_move_shared after insert or update or delete or truncate on boost_schedules
  for each statement execute function wallet_marks_shared_move();
create trigger boost_schedule_cancellations_move_shared after insert or update or delete or truncate on boost_schedule_cancellations
  for each statement execute function wallet_marks_shared_move();

-- The runtime role reads the counters; only the triggers' functions (the owner's) move them.
revoke insert, update, delete, truncate on wallet_marks, wallet_marks_shared from spooks_runtime;
