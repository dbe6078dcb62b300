-- Winners claim their prize (issue 27, item 9): a winner signs
-- `Claim {title} (#{id}) for {address}. Contact: {text}. Timestamp: {ISO}` once per giveaway. The row keeps the
-- signed message and signature (the proof), and the contact the admin needs to deliver the prize. Contacts are
-- read only through the admin's session (GET /api/giveaways/{id}/claims, /admin, `spooks-admin giveaways claims`).
create table giveaway_claims (
  id           serial primary key,
  giveaway_id  integer not null references giveaways (id) on delete cascade,
  address      text not null,
  contact      text not null check (char_length(contact) between 1 and 200 and contact !~ '[[:cntrl:]]'),
  message      text not null check (char_length(message) between 1 and 2000),
  signature    text not null check (char_length(signature) between 1 and 200),
  claimed_at   timestamptz not null,
  -- Once per winner and giveaway.
  unique (giveaway_id, address)
);

-- Only a winner claims, whoever writes: an address among the giveaway's winners (version 2) or its winner
-- (version 1).
create function giveaway_claim_by_winner() returns trigger language plpgsql as $$
begin
  if not exists (select 1 from giveaway_winners w where w.giveaway_id = new.giveaway_id and w.address = new.address)
     and not exists (select 1 from giveaways g where g.id = new.giveaway_id and g.winner_address = new.address) then
    raise exception 'giveaway %: % is not one of its winners', new.giveaway_id, new.address using errcode = 'check_violation';
  end if;
  return new;
end $$;
create trigger giveaway_claims_by_winner before insert on giveaway_claims
  for each row execute function giveaway_claim_by_winner();

-- A claim is a signed record: the runtime adds claims and never changes or removes one (a claim goes only
-- with its giveaway, by the foreign key's cascade).
revoke update, delete, truncate on giveaway_claims from spooks_runtime;
