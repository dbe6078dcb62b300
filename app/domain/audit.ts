/**
 * The audit trail's vocabulary: who can act and the actions recorded, each with the words the admin page
 * and the CLI show. Actions are `family.verb`; a filter on a family (`points`) matches all of its verbs.
 */
export const AUDIT_ACTOR_KINDS = ["web", "cli", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

export const AUDIT_ACTIONS = {
  "points.add": "Points added",
  "points.clear": "Points cleared",
  "points.recalculate": "Balances recalculated",
  "points.reset-negative": "Negative balances reset",
  "accrual.hour": "Hour credited",
  "boosts.set": "Boost schedule set",
  "boosts.cancel": "Upcoming boost schedule cancelled",
  "stake.transferred": "Stake ended by a transfer",
  "stake.reopened": "Stake continued after a reorg",
  "giveaway.create": "Giveaway created",
  "giveaway.activate": "Giveaway activated",
  "giveaway.end": "Giveaway ended",
  "giveaway.image": "Giveaway image changed",
  "giveaway.update": "Giveaway edited",
  "giveaway.draw": "Winner drawn",
  "giveaway.delete": "Giveaway deleted",
  "giveaway.claim": "Prize claimed",
  "proposal.create": "Proposal created",
  "proposal.start": "Proposal started now",
  "proposal.delete": "Proposal deleted",
  "upload.image": "Image uploaded",
  "catalogue.import": "Catalogue imported",
  "indexer.sync": "Ownership sync (CLI)",
  "notifications.replay": "Notification sent again",
  "notifications.test": "Test notification sent",
  "webhook.create": "Webhook added",
  "webhook.delete": "Webhook deleted",
  "webhook.rotate-secret": "Webhook secret rotated",
  "webhook.replay": "Webhook delivery replayed",
  "webhook.disable": "Webhook disabled",
  "auth.sign-in": "Admin signed in",
  "auth.sign-out": "Admin signed out",
  "auth.session-end": "Admin session ended by the owner",
  "team.add": "Team member added",
  "team.role": "Team member's role changed",
  "team.remove": "Team member removed",
  "approval.propose": "Approval requested",
  "approval.approve": "Approval given",
  "approval.reject": "Approval rejected",
  "approval.policy": "Approval policy set",
  "discord.link": "Wallet linked to Discord",
  "discord.unlink": "Wallet unlinked from Discord",
  "discord.rules": "Discord role rules saved",
  "discord.sweep": "Discord roles reconciled",
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The families a filter can name (`points`, `giveaway`…), in the order of AUDIT_ACTIONS. */
export const AUDIT_FAMILIES = [...new Set(Object.keys(AUDIT_ACTIONS).map((action) => action.split(".")[0]))];

/** What an action is called on the page; an action this list does not know (a newer release's) as it is. */
export function auditActionLabel(action: string): string {
  return (AUDIT_ACTIONS as Record<string, string>)[action] ?? action;
}
