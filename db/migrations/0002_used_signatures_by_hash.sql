-- A bulk stake message names up to ~1,900 items (tens of KB), beyond the size a btree entry may have,
-- so a used signature is keyed by the SHA-256 of its message instead of the message itself.
create function text_sha256(text) returns text language sql immutable strict parallel safe
  as $$ select encode(sha256(convert_to($1, 'UTF8')), 'hex') $$;

alter table used_signatures drop constraint used_signatures_pkey;
alter table used_signatures add column message_sha256 text generated always as (text_sha256(message)) stored;
alter table used_signatures add primary key (address, message_sha256);
