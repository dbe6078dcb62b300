-- The abuse limits' counts (server/rate-limits.ts), shared by every web replica: one row per limit and
-- client address for the current fixed window. Unlogged: a count is worth no WAL, and losing the counts in
-- a crash only starts every window afresh. Expired rows are deleted in bounded batches through resets_at.
create unlogged table rate_limit_hits (
  key text primary key,
  hits integer not null check (hits > 0),
  resets_at timestamptz not null
);
create index rate_limit_hits_resets_at on rate_limit_hits (resets_at);
