-- Sign-in rows are cleaned up in bounded batches, oldest first (db/queries/auth.server.ts,
-- deleteExpiredAuthRows): these indexes let each batch find its rows without reading the whole table.
create index auth_challenges_expires_at on auth_challenges (expires_at);
create index sessions_expires_at on sessions (expires_at);
