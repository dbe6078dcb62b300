/**
 * Second-signature approvals (issue 35, item 4; docs/admin.md "Approvals"): which actions the owner's policy
 * may cover, when a request is covered, the words of each pending action, and the text an approver signs.
 * Off by default: with no policy every change applies at once, as the spec's single admin expects.
 */
import type { AssignableRole, Permission } from "./team.ts";

/** What the policy can cover, as the owner names them in `PUT /api/admin/approvals/policy`. */
export const APPROVAL_ACTIONS = [
  "clear-points",
  "reset-negative-balances",
  "recalculate-points",
  "giveaway.delete",
  "select-winner",
  "boosts",
  "team",
  "webhooks",
  "discord.rules",
] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

/**
 * What a pending approval can be: a covered action, an addition of points above `pointsAbove`, or a change of
 * the policy itself (covered whenever the policy covers anything: loosening it takes two, as every other
 * covered change does).
 */
export const APPROVAL_KINDS = [...APPROVAL_ACTIONS, "add-points", "approvals.policy"] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** How long a pending approval waits for its second signature. */
export const APPROVAL_TTL_MS = 24 * 3_600_000;

/** The largest number of points `pointsAbove` may name (the add form's own maximum). */
export const MAX_POINTS_ABOVE = 1_000_000_000;

export type ApprovalPolicy = { pointsAbove: number | null; actions: ApprovalAction[] };

export const NO_POLICY: ApprovalPolicy = { pointsAbove: null, actions: [] };

export function isApprovalAction(value: unknown): value is ApprovalAction {
  return typeof value === "string" && (APPROVAL_ACTIONS as readonly string[]).includes(value);
}

export function policyIsOff(policy: ApprovalPolicy): boolean {
  return policy.pointsAbove === null && policy.actions.length === 0;
}

/**
 * Whether a request of `kind` needs a second signature under `policy`. `points` is what it moves for the points
 * kinds (an addition's amount, a clear's balance): above `pointsAbove` it is covered whatever `actions` say.
 */
export function isCovered(policy: ApprovalPolicy, kind: ApprovalKind, points?: number): boolean {
  if (kind === "approvals.policy") return !policyIsOff(policy);
  if (kind !== "add-points" && policy.actions.includes(kind)) return true;
  const pointsKind = kind === "add-points" || kind === "clear-points";
  return pointsKind && policy.pointsAbove !== null && points !== undefined && Math.abs(points) > policy.pointsAbove;
}

/** A pending approval's status as it reads now: pending past its expiry is expired. */
export function statusAt(stored: "pending" | "approved" | "rejected", expiresAt: Date, at: Date): ApprovalStatus {
  return stored === "pending" && expiresAt.getTime() <= at.getTime() ? "expired" : stored;
}

// What the approver signs ----------------------------------------------------------------------------

const ISO = String.raw`(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)`;
const APPROVE_PATTERN = new RegExp(String.raw`^Approve Spooks action #(\d+): ([\s\S]*)\. Timestamp: ${ISO}$`);

/** `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}` */
export function approvalMessage(id: number, summary: string, at: Date): string {
  return `Approve Spooks action #${id}: ${summary}. Timestamp: ${at.toISOString()}`;
}

/**
 * Its parts. The summary is free text, so the server does not trust this split: it rebuilds the message from
 * the stored summary with this id and timestamp and compares the whole text.
 */
export function parseApprovalMessage(message: string): { id: number; summary: string; timestamp: Date } | null {
  const match = APPROVE_PATTERN.exec(message);
  if (!match) return null;
  const id = Number(match[1]);
  const timestamp = new Date(match[3]);
  if (!Number.isSafeInteger(id) || id < 1 || String(id) !== match[1]) return null;
  if (Number.isNaN(timestamp.getTime()) || timestamp.toISOString() !== match[3]) return null;
  return { id, summary: match[2], timestamp };
}

/**
 * What the admin page says of a change the policy kept for a second signature (a toast, or the tab's own line):
 * nothing changed yet, and where the approval waits.
 */
export function approvalRequested(id: number, summary: string): { title: string; description: string } {
  return {
    title: "Approval requested",
    description: `Action #${id} waits for a second member's signature in the Approvals tab: ${summary}.`,
  };
}

// The words of each action -----------------------------------------------------------------------------

/** The longest summary: it is signed, so it stays one readable line. */
export const SUMMARY_MAX = 300;

/** One line: no line breaks, runs of spaces folded, quotes kept, cut with "…" past `max`. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const points = (value: number) => `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} point${value === 1 ? "" : "s"}`;

export const summaries = {
  addPoints: (address: string, amount: number) => `Add ${points(amount)} to ${address}`,
  clearPoints: (address: string) => `Clear the points of ${address}`,
  resetNegativeBalances: () => "Reset every negative balance to 0",
  recalculatePoints: () => "Recalculate every balance from the ledger",
  deleteGiveaway: (id: number, title: string) => `Delete giveaway #${id} "${oneLine(title)}"`,
  selectWinner: (id: number, title: string) => `Select the winners of giveaway #${id} "${oneLine(title)}"`,
  boosts: (effectiveFrom: Date, rules: string) =>
    oneLine(`Set the boost schedule from ${effectiveFrom.toISOString()}: ${rules}`, SUMMARY_MAX),
  cancelBoosts: (version: number, effectiveFrom: Date) => `Cancel boost schedule v${version}, due from ${effectiveFrom.toISOString()}`,
  addMember: (address: string, role: AssignableRole) => `Make ${address} ${role === "admin" ? "an" : "a"} ${role} of the admin team`,
  removeMember: (address: string) => `Remove ${address} from the admin team`,
  createWebhook: (url: string, events: readonly string[]) => oneLine(`Add the webhook ${url} for ${events.join(", ")}`, SUMMARY_MAX),
  deleteWebhook: (id: number, url: string) => oneLine(`Delete webhook #${id} (${url})`, SUMMARY_MAX),
  rotateWebhookSecret: (id: number, url: string) => oneLine(`Rotate the secret of webhook #${id} (${url})`, SUMMARY_MAX),
  discordRules: (count: number) => `Replace the Discord role rules with ${count} rule${count === 1 ? "" : "s"}`,
  policy: (policy: ApprovalPolicy) =>
    policyIsOff(policy)
      ? "Turn second signatures off"
      : oneLine(
          `Require a second signature for ${[
            ...(policy.pointsAbove === null ? [] : [`points above ${policy.pointsAbove.toLocaleString("en-US")}`]),
            ...policy.actions,
          ].join(", ")}`,
          SUMMARY_MAX,
        ),
} as const;

/** What the Approvals tab and `spooks-admin approvals list` call each kind. */
export const APPROVAL_KIND_LABELS: Record<ApprovalKind, string> = {
  "clear-points": "Clear points",
  "reset-negative-balances": "Reset negative balances",
  "recalculate-points": "Recalculate points",
  "giveaway.delete": "Delete a giveaway",
  "select-winner": "Select the winners",
  boosts: "Boost schedule",
  team: "Team change",
  webhooks: "Webhook change",
  "discord.rules": "Discord role rules",
  "add-points": "Add points",
  "approvals.policy": "Approval policy",
};

/**
 * The permission approving each kind takes (beside "approve"): the action's own, or for the owner's team and
 * policy changes "team.approve" (an admin co-signs them). The server reads the routes' contracts; the page uses
 * this to offer Approve only where it would be accepted.
 */
export const APPROVAL_PERMISSION: Record<ApprovalKind, Permission> = {
  "clear-points": "points",
  "reset-negative-balances": "points",
  "recalculate-points": "points",
  "add-points": "points",
  "giveaway.delete": "giveaways",
  "select-winner": "giveaways",
  boosts: "boosts",
  webhooks: "webhooks",
  "discord.rules": "discord",
  team: "team.approve",
  "approvals.policy": "team.approve",
};
