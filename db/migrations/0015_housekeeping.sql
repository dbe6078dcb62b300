-- Used signatures are pruned once past their window in bounded batches, oldest first
-- (db/queries/housekeeping.server.ts): this index lets each batch find its rows without reading the table.
create index used_signatures_used_at on used_signatures (used_at);
