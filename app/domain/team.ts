/**
 * The admin team (issue 35; docs/admin.md): who may do what. ADMIN_ADDRESS is the owner; the owner adds members
 * with a role. Each admin route names the permission it needs (its contract's `requires`), and a role holds a
 * fixed set of permissions. With no member added, the owner is the only admin and holds every permission,
 * which is the spec's one fixed admin.
 */

/** The roles, most powerful first. `owner` is ADMIN_ADDRESS's alone and is never stored. */
export const MEMBER_ROLES = ["owner", "admin", "moderator", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** The roles the owner may give a member. */
export const ASSIGNABLE_ROLES = ["admin", "moderator", "viewer"] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

export const PERMISSIONS = [
  /** Every admin tab's data: the wallets, the audit trail, deliveries, webhooks, rules, the team, approvals. */
  "read",
  /** Add, clear, recalculate and reset points. */
  "points",
  "boosts",
  /** Create, edit, end, activate, change the picture, select the winner, upload a picture, delete an open one. */
  "giveaways",
  /** Delete a giveaway whose entries have closed (ended, drawing or drawn). */
  "giveaways.delete-closed",
  /** Create, start now and delete proposals. */
  "proposals",
  /** The notification channels: send a test, replay a delivery. */
  "channels",
  "webhooks",
  /** The Discord role rules. */
  "discord",
  /** Approve (or reject) another member's pending action: the approver also needs the action's own permission. */
  "approve",
  /** Add and remove members, set the approval policy, end any member's session. */
  "team",
  /** Co-sign a team or policy change the owner proposed (only the owner proposes those). */
  "team.approve",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const EVERYTHING: readonly Permission[] = PERMISSIONS;

const GRANTS: Record<MemberRole, readonly Permission[]> = {
  owner: EVERYTHING,
  admin: EVERYTHING.filter((permission) => permission !== "team"),
  moderator: ["read", "giveaways", "proposals", "approve"],
  viewer: ["read"],
};

export function can(role: MemberRole, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

export function permissionsOf(role: MemberRole): Permission[] {
  return [...GRANTS[role]];
}

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === "string" && (MEMBER_ROLES as readonly string[]).includes(value);
}

export function isAssignableRole(value: unknown): value is AssignableRole {
  return typeof value === "string" && (ASSIGNABLE_ROLES as readonly string[]).includes(value);
}

/** "A moderator cannot add points": the 403 every refused role gets, naming the role and what it tried. */
export function roleRefusal(role: MemberRole, doing: string): string {
  const article = /^[aeiou]/.test(role) ? "An" : "A";
  return `${article} ${role} cannot ${doing}`;
}

/** What a route (or a form) needs: the permission, and what the refusal says it was doing. */
export type Requirement = { permission: Permission; doing: string };

/** The refusal for `role` doing what `requirement` needs, or null when the role may. */
export function refusalFor(role: MemberRole, requirement: Requirement): string | null {
  return can(role, requirement.permission) ? null : roleRefusal(role, requirement.doing);
}

/** The roles that hold `permission` (the docs and the OpenAPI document list them per route). */
export function rolesWith(permission: Permission): MemberRole[] {
  return MEMBER_ROLES.filter((role) => can(role, permission));
}

/** The one message every non-member with a session gets, team or no team (the spec's admin check). */
export const NOT_A_MEMBER = "Only the admin may do this";
