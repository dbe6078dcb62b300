-- Notifications (issue 24): the state of a delivery channel as a whole. A Discord channel webhook that
-- answered 404 (Unknown Webhook: deleted) is disabled here, for the URL it had (its SHA-256), and the
-- admin is shown why; a new DISCORD_WEBHOOK_URL, or a test the admin sends that Discord accepts, enables it again.
create table notification_channel_state (
  channel text primary key check (channel in ('discord', 'webhook', 'email')),
  -- SHA-256 (hex) of the destination the state is about (the Discord webhook URL): another URL is not disabled.
  destination_sha256 text not null,
  disabled_at timestamptz,
  disabled_reason text,
  updated_at timestamptz not null
);
