-- Slash commands over HTTP (issue 37; docs/discord.md "Slash commands"): every interaction Discord delivers is
-- answered once. Its id is claimed here before the command runs; a second delivery of the same id (a replay
-- within the 5 minutes the signed timestamp allows, or a proxy retrying) finds it taken and is refused. Rows
-- are kept an hour (housekeeping), well past the 5 minutes after which the timestamp alone refuses a replay.
create table discord_interactions (
  id           text primary key check (id ~ '^[0-9]{17,20}$'),
  received_at  timestamptz not null
);
create index discord_interactions_by_age on discord_interactions (received_at);
