import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";

export default [
  layout("routes/layout.tsx", [
    index("routes/stake.tsx"),
    route("rewards", "routes/rewards.tsx"),
    route("rewards/history", "routes/points-history.tsx"),
    route("giveaways/:id/verify", "routes/verify-draw.tsx"),
    // A proposal's own address: its details dialog over the list (direct load and reload open it too).
    route("governance", "routes/governance.tsx", [route(":id", "routes/governance-proposal.tsx")]),
    route("admin", "routes/admin.tsx"),
    route("discord/linked", "routes/discord-linked.tsx"),
    // Notification settings, and the pages an email's links open (issue 33, item 9).
    route("notifications", "routes/notification-settings.tsx"),
    route("email/confirm/:token", "routes/email-confirm.tsx"),
    route("email/unsubscribe/:token", "routes/email-unsubscribe.tsx"),
    route("log", "routes/log.tsx"),
    // Any other page: the 404, inside the site's header and navigation so a bad link strands nobody.
    route("*", "routes/not-found.tsx"),
  ]),

  ...prefix("api", [
    route("health", "routes/api/health.ts"),
    route("live", "routes/api/live.ts"),
    route("ready", "routes/api/ready.ts"),

    // Holdings, stats and rewards
    route("wallet-doginals/:address", "routes/api/wallet-doginals.ts"),
    route("verify-holdings", "routes/api/verify-holdings.ts"),
    route("rewards/:address", "routes/api/rewards.ts"),
    route("points/:address/history", "routes/api/points-history.ts"),
    route("stats/:address", "routes/api/stats.ts"),
    route("leaderboard", "routes/api/leaderboard.ts"),
    route("catalogue", "routes/api/catalogue.ts"),
    route("boosts", "routes/api/boosts.ts"),

    // Staking
    route("stake", "routes/api/stake.ts"),
    route("unstake", "routes/api/unstake.ts"),
    route("stake/bulk", "routes/api/stake-bulk.ts"),
    route("unstake/bulk", "routes/api/unstake-bulk.ts"),

    // Giveaways
    route("giveaways", "routes/api/giveaways.ts"),
    route("giveaways/enter", "routes/api/giveaways-enter.ts"),
    route("giveaways/entries/user/:address", "routes/api/giveaways-entries-user.ts"),
    route("giveaways/:id", "routes/api/giveaway.ts"),
    route("giveaways/:id/entries", "routes/api/giveaway-entries.ts"),
    route("giveaways/:id/image", "routes/api/giveaway-image.ts"),
    route("giveaways/:id/select-winner", "routes/api/giveaway-select-winner.ts"),
    route("giveaways/:id/draw", "routes/api/giveaway-draw.ts"),
    route("giveaways/:id/claim", "routes/api/giveaway-claim.ts"),
    route("giveaways/:id/claims", "routes/api/giveaway-claims.ts"),
    route("upload-image", "routes/api/upload-image.ts"),

    // Admin points
    route("admin/users", "routes/api/admin-users.ts"),
    route("add-permanent-points", "routes/api/add-permanent-points.ts"),
    route("admin/clear-points", "routes/api/admin-clear-points.ts"),
    route("admin/recalculate-points", "routes/api/admin-recalculate-points.ts"),
    route("admin/reset-negative-balances", "routes/api/admin-reset-negative-balances.ts"),
    route("admin/audit", "routes/api/admin-audit.ts"),
    route("admin/boosts", "routes/api/admin-boosts.ts"),
    route("admin/boosts/preview", "routes/api/admin-boosts-preview.ts"),
    route("admin/boosts/:version", "routes/api/admin-boost.ts"),

    // The admin team: members, second-signature approvals, sessions (issue 35)
    route("admin/team", "routes/api/admin-team.ts"),
    route("admin/team/:address", "routes/api/admin-team-member.ts"),
    route("admin/approvals", "routes/api/admin-approvals.ts"),
    route("admin/approvals/policy", "routes/api/admin-approvals-policy.ts"),
    route("admin/approvals/:id/approve", "routes/api/admin-approval-approve.ts"),
    route("admin/approvals/:id/reject", "routes/api/admin-approval-reject.ts"),
    route("admin/sessions", "routes/api/admin-sessions.ts"),
    route("admin/sessions/:id", "routes/api/admin-session.ts"),

    // Notifications (issue 24)
    route("notifications/:address", "routes/api/notifications.ts"),
    route("admin/notifications/deliveries", "routes/api/admin-notifications-deliveries.ts"),
    route("admin/notifications/deliveries/:id/replay", "routes/api/admin-notifications-replay.ts"),
    route("admin/notifications/channels", "routes/api/admin-notifications-channels.ts"),
    route("admin/notifications/test", "routes/api/admin-notifications-test.ts"),
    // Signed webhooks and email notifications (issue 24)
    route("admin/webhooks", "routes/api/admin-webhooks.ts"),
    route("admin/webhooks/:id", "routes/api/admin-webhook.ts"),
    route("admin/webhooks/:id/rotate-secret", "routes/api/admin-webhook-rotate.ts"),
    route("admin/webhooks/:id/deliveries", "routes/api/admin-webhook-deliveries.ts"),
    route("admin/webhooks/:id/deliveries/:deliveryId/replay", "routes/api/admin-webhook-replay.ts"),
    route("admin/mail-outbox", "routes/api/admin-mail-outbox.ts"),
    route("admin/notifications/channel-posts", "routes/api/admin-channel-posts.ts"),
    route("notifications/email", "routes/api/notifications-email.ts"),
    route("notifications/email/confirm/:token", "routes/api/notifications-email-confirm.ts"),
    route("notifications/email/unsubscribe/:token", "routes/api/notifications-email-unsubscribe.ts"),
    route("notifications/email/:address", "routes/api/notifications-email-status.ts"),

    // Governance
    route("proposals", "routes/api/proposals.ts"),
    route("proposals/user/:address", "routes/api/proposals-user.ts"),
    route("proposals/voting-power/:address", "routes/api/proposals-voting-power.ts"),
    route("proposals/:id", "routes/api/proposal.ts"),
    route("proposals/:id/vote", "routes/api/proposal-vote.ts"),
    route("proposals/:id/votes", "routes/api/proposal-votes.ts"),

    // Sign-in
    route("auth/challenge", "routes/api/auth-challenge.ts"),

    // Discord holder roles (404 unless DISCORD_* is set)
    route("discord/pending/:linkToken", "routes/api/discord-pending.ts"),
    route("discord/link", "routes/api/discord-link.ts"),
    route("discord/link/:address", "routes/api/discord-link-address.ts"),
    route("discord/account", "routes/api/discord-account.ts"),
    route("admin/discord/rules", "routes/api/admin-discord-rules.ts"),
    route("admin/discord/preview", "routes/api/admin-discord-preview.ts"),
    route("admin/discord/status", "routes/api/admin-discord-status.ts"),
    // Slash commands (issue 37; 404 without DISCORD_PUBLIC_KEY)
    route("discord/interactions", "routes/api/discord-interactions.ts"),
    route("admin/discord/commands", "routes/api/admin-discord-commands.ts"),
    route("admin/discord/commands/test", "routes/api/admin-discord-commands-test.ts"),
    route("auth/session", "routes/api/auth-session.ts"),

    // The public log's proofs (issue 34); its files are under /log/ below
    route("log", "routes/api/log-info.ts"),
    route("log/proof/:index", "routes/api/log-proof.ts"),
    route("log/consistency", "routes/api/log-consistency.ts"),
    route("balances", "routes/api/balances.ts"),

    // Demo mode only: the built-in demo wallets
    route("demo/wallets", "routes/api/demo-wallets.ts"),

    // The API's reference: the OpenAPI document, and Swagger UI rendering it (with its files)
    route("openapi.json", "routes/api/openapi.ts"),
    route("docs", "routes/api/docs.ts"),
    route("docs/:asset", "routes/api/docs-asset.ts"),

    route("*", "routes/api/not-found.ts"),
  ]),

  // Linking a wallet to Discord: out to the authorize page and back (issue 25).
  route("discord/link", "routes/discord-link.ts"),
  route("discord/callback", "routes/discord-callback.ts"),
  // The public log as C2SP tlog-tiles files: /log/checkpoint, /log/key, /log/tile/… (issue 34). The checkpoint,
  // the file every browser reads, has a path of its own: React Router tries a splat after every other route.
  route("log/checkpoint", "routes/log-files.ts", { id: "log-checkpoint" }),
  route("log/*", "routes/log-files.ts"),
  // A catalogue item's picture from the ord server, cached on disk (issue 12).
  route("content/:inscriptionId", "routes/content.ts"),
  // Anything else under /content (no id, a deeper path) is refused by the same loader, as JSON.
  route("content/*", "routes/content.ts", { id: "content-malformed" }),
] satisfies RouteConfig;
