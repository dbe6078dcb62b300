-- A Discord link is bound to the browser that started it (issue 32, item 7; RFC 9700 §4.7): GET /discord/link
-- sets a short-lived HttpOnly SameSite=Lax cookie, kept here as its SHA-256 with the OAuth2 state and, after the
-- callback, with the link token; the callback, the pending link and POST /api/discord/link need that cookie.
-- Rows from before (at most 10 minutes old) have none and are refused: start again.
alter table discord_oauth_states add column browser_sha256 text check (browser_sha256 ~ '^[0-9a-f]{64}$');
alter table discord_pending_links add column browser_sha256 text check (browser_sha256 ~ '^[0-9a-f]{64}$');
