-- Draw version 2, operator-blind (issue 18; DECISIONS "Draw version 2"; docs/fairness.md).
-- The seed is committed at creation as before; the winners also depend on the hash of a block fixed when
-- entries close (draw_block_height) and read once six blocks sit on top of it (draw_block_hash), so nobody
-- who reads this database, the operator included, can know a winner before entries close.
-- Giveaways created before this migration stay version 1 and keep their own rule; the service creates
-- every new giveaway as version 2 (the column's default stays 1 for rows written by hand).
alter table giveaways
  add column draw_version smallint not null default 1 check (draw_version in (1, 2)),
  add column winners integer not null default 1 check (winners between 1 and 100),
  add column closed_at timestamptz,
  add column draw_block_height integer check (draw_block_height >= 0),
  add column draw_block_hash text check (draw_block_hash ~ '^[0-9a-f]{64}$');

alter table giveaways
  add constraint giveaways_v1_has_no_block check (
    draw_version = 2 or (winners = 1 and closed_at is null and draw_block_height is null and draw_block_hash is null)),
  add constraint giveaways_closed_at_a_block check ((closed_at is null) = (draw_block_height is null)),
  add constraint giveaways_hash_after_close check (draw_block_hash is null or draw_block_height is not null),
  -- Version 1: drawn means a winner. Version 2: drawn once the block hash is read, with no winner when
  -- nobody entered.
  drop constraint giveaways_check,
  add constraint giveaways_winner_when_drawn check (winner_address is null or drawn_at is not null),
  add constraint giveaways_v1_drawn_with_winner check (draw_version = 2 or (winner_address is null) = (drawn_at is null)),
  add constraint giveaways_v2_drawn_with_hash check (draw_version = 1 or (drawn_at is null) = (draw_block_hash is null));

-- The entries as they froze when entries closed: one row per address with the sum of its tickets,
-- `ordinal` in ascending byte order of the address (the draw's canonical order).
create table giveaway_draw_entries (
  giveaway_id  integer not null references giveaways (id) on delete cascade,
  ordinal      integer not null check (ordinal >= 0),
  address      text not null,
  tickets      bigint not null check (tickets >= 1),
  primary key (giveaway_id, ordinal),
  unique (giveaway_id, address)
);

-- A version-2 draw's winners in draw order (k = 0, 1, …): ticket t of the total T still in play.
create table giveaway_winners (
  giveaway_id    integer not null references giveaways (id) on delete cascade,
  k              integer not null check (k >= 0),
  address        text not null,
  ticket         bigint not null check (ticket >= 0),
  total_tickets  bigint not null check (ticket < total_tickets),
  primary key (giveaway_id, k),
  unique (giveaway_id, address)
);

-- Frozen means frozen: neither the closed entries nor the winners change (a giveaway's delete still
-- removes them with it).
create function giveaway_draw_rows_are_final() returns trigger language plpgsql as $$
begin
  raise exception 'a closed giveaway''s entries and winners cannot change' using errcode = 'check_violation';
end $$;
create trigger giveaway_draw_entries_final before update on giveaway_draw_entries
  for each row execute function giveaway_draw_rows_are_final();
create trigger giveaway_winners_final before update on giveaway_winners
  for each row execute function giveaway_draw_rows_are_final();

-- No entry after entries closed or a winner was drawn, whoever writes it.
create function giveaway_entries_while_open() returns trigger language plpgsql as $$
begin
  if exists (select 1 from giveaways g where g.id = new.giveaway_id and (g.closed_at is not null or g.drawn_at is not null)) then
    raise exception 'giveaway % is closed to entries', new.giveaway_id using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger giveaway_entries_while_open before insert on giveaway_entries
  for each row execute function giveaway_entries_while_open();
