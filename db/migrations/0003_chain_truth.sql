-- Chain truth: every owner as the ord server reports it, every move, and a guard against rollbacks.

-- An inscription sits at a P2PKH address (a wallet that can sign and stake), a P2SH address, or an
-- output with no address at all (P2PK, bare multisig, non-standard): those two hold it, but nobody can
-- stake it.
alter table ownership alter column owner_address drop not null;
alter table ownership add column owner_kind text not null default 'p2pkh'
  check (owner_kind in ('p2pkh', 'p2sh', 'none'));
alter table ownership add constraint ownership_address_of_kind check ((owner_kind = 'none') = (owner_address is null));

-- `transfers` records every move seen (a new satpoint), owner change or not.
alter table transfers alter column to_address drop not null;
alter table transfers add column to_kind text not null default 'p2pkh'
  check (to_kind in ('p2pkh', 'p2sh', 'none'));
alter table transfers add constraint transfers_address_of_kind check ((to_kind = 'none') = (to_address is null));
create index transfers_by_item_satpoint on transfers (item_id, satpoint);

-- Heights are heights: the ord server's block count is the last height + 1. Earlier passes stored the count.
update ownership set block_height = block_height - 1 where block_height > 0;
update transfers set block_height = block_height - 1 where block_height > 0;
update sync_runs set block_height = block_height - 1 where block_height > 0;

-- A pass either applied what it read ('ok') or was held back, changing nothing, with its reason.
alter table sync_runs add column state text not null default 'ok'
  check (state in ('ok', 'rewinding', 'stalled', 'unavailable'));
alter table sync_runs add column reason text;
alter table sync_runs add constraint sync_runs_reason_when_held_back check ((state = 'ok') = (reason is null));
update sync_runs set state = 'unavailable', reason = 'ord server unreachable' where block_height is null;
create index sync_runs_ok on sync_runs (id) where state = 'ok';
create index sync_runs_held_back on sync_runs (id) where state <> 'ok';

-- The highest block count any pass has seen: a lower one means the server is answering from an older state.
create table chain_cursor (
  id                   boolean primary key default true check (id),
  highest_block_count  integer not null check (highest_block_count > 0),
  updated_at           timestamptz not null
);
insert into chain_cursor (highest_block_count, updated_at)
  select max(block_height) + 1, max(finished_at) from sync_runs where block_height is not null having count(*) > 0;
