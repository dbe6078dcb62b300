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
    route("upload-image", "routes/api/upload-image.ts"),

    // Admin points
    route("admin/users", "routes/api/admin-users.ts"),
    route("add-permanent-points", "routes/api/add-permanent-points.ts"),
    route("admin/clear-points", "routes/api/admin-clear-points.ts"),
    route("admin/recalculate-points", "routes/api/admin-recalculate-points.ts"),
    route("admin/reset-negative-balances", "routes/api/admin-reset-negative-balances.ts"),
    route("admin/audit", "routes/api/admin-audit.ts"),

    // Governance
    route("proposals", "routes/api/proposals.ts"),
    route("proposals/user/:address", "routes/api/proposals-user.ts"),
    route("proposals/voting-power/:address", "routes/api/proposals-voting-power.ts"),
    route("proposals/:id", "routes/api/proposal.ts"),
    route("proposals/:id/vote", "routes/api/proposal-vote.ts"),
    route("proposals/:id/votes", "routes/api/proposal-votes.ts"),

    // Sign-in
    route("auth/challenge", "routes/api/auth-challenge.ts"),
    route("auth/session", "routes/api/auth-session.ts"),

    // Demo mode only: the built-in demo wallets
    route("demo/wallets", "routes/api/demo-wallets.ts"),

    // The API's reference: the OpenAPI document, and Swagger UI rendering it (with its files)
    route("openapi.json", "routes/api/openapi.ts"),
    route("docs", "routes/api/docs.ts"),
    route("docs/:asset", "routes/api/docs-asset.ts"),

    route("*", "routes/api/not-found.ts"),
  ]),

  // A catalogue item's picture from the ord server, cached on disk (issue 12).
  route("content/:inscriptionId", "routes/content.ts"),
  // Anything else under /content (no id, a deeper path) is refused by the same loader, as JSON.
  route("content/*", "routes/content.ts", { id: "content-malformed" }),
] satisfies RouteConfig;
