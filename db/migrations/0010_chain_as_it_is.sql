-- The chain as it really is (issue 20).

-- wonky-ord names a witness-program-shaped output with a bech32 address (`bc1…`). It is recorded as it is
-- named, with its own kind: like P2SH and address-less outputs, nobody can stake it (only 'p2pkh' signs).
alter table ownership drop constraint ownership_owner_kind_check;
alter table ownership add constraint ownership_owner_kind_check
  check (owner_kind in ('p2pkh', 'p2sh', 'witness', 'none'));
alter table transfers drop constraint transfers_to_kind_check;
alter table transfers add constraint transfers_to_kind_check
  check (to_kind in ('p2pkh', 'p2sh', 'witness', 'none'));

-- A reorg that undoes a move gives the item back to the holder whose stake that move ended: the indexer
-- opens a new stake for them (from the moment it applies the return) and links it to the one it continues.
alter table stakes add column reopened_from bigint references stakes (id) on delete set null;
alter table stakes add constraint stakes_reopened_from_earlier check (reopened_from is null or reopened_from < id);
create index stakes_by_reopened_from on stakes (reopened_from) where reopened_from is not null;
