/**
 * Discord holder roles (issue 25): the rules' shape, what a member's standing earns, and the texts a wallet
 * signs to link and unlink. Used by the web routes, the indexer's role sync and the CLI alike. Browser-safe.
 */
const ISO = String.raw`(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)`;

function parseIso(text: string): Date | null {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) || date.toISOString() !== text ? null : date;
}

/** A rule: `roleId` is earned when every condition given holds (a rule without conditions: every linked member). */
export type DiscordRule = {
  roleId: string;
  /** Items staked now. */
  minStaked?: number;
  /** Points balance (whole points). */
  minPoints?: number;
  /** Legendary items staked now. */
  minLegendary?: number;
  /** Days since the longest open stake began. */
  minStakedDays?: number;
};

/** What the rules read of a member's standing. */
export type Standing = {
  staked: number;
  legendary: number;
  /** Points balance, whole points (fractions kept: 99.5 does not reach 100). */
  points: number;
  /** When the oldest open stake began; null with nothing staked. */
  oldestStakeSince: Date | null;
};

export const DAY_MS = 86_400_000;

export function earnsRole(rule: DiscordRule, standing: Standing, at: Date): boolean {
  if (rule.minStaked !== undefined && standing.staked < rule.minStaked) return false;
  if (rule.minLegendary !== undefined && standing.legendary < rule.minLegendary) return false;
  if (rule.minPoints !== undefined && standing.points < rule.minPoints) return false;
  if (rule.minStakedDays !== undefined) {
    const days = standing.oldestStakeSince ? (at.getTime() - standing.oldestStakeSince.getTime()) / DAY_MS : -1;
    if (days < rule.minStakedDays) return false;
  }
  return true;
}

/**
 * Why a standing does not earn a rule's role, one phrase per condition it misses, with the figures
 * ("needs 30 staked, has 23"; issue 33, item 7); empty when it earns the role.
 */
export function unmetConditions(rule: DiscordRule, standing: Standing, at: Date): string[] {
  const missing: string[] = [];
  if (rule.minStaked !== undefined && standing.staked < rule.minStaked)
    missing.push(`needs ${rule.minStaked} staked, has ${standing.staked}`);
  if (rule.minLegendary !== undefined && standing.legendary < rule.minLegendary) {
    missing.push(`needs ${rule.minLegendary} Legendary staked, has ${standing.legendary}`);
  }
  if (rule.minPoints !== undefined && standing.points < rule.minPoints) {
    missing.push(`needs ${rule.minPoints} points, has ${Math.floor(standing.points)}`);
  }
  if (rule.minStakedDays !== undefined) {
    const days = standing.oldestStakeSince ? Math.floor((at.getTime() - standing.oldestStakeSince.getTime()) / DAY_MS) : 0;
    if (!earnsRole({ roleId: rule.roleId, minStakedDays: rule.minStakedDays }, standing, at)) {
      missing.push(`needs ${rule.minStakedDays} days staking, has ${days}`);
    }
  }
  return missing;
}

/** What a standing has of a rule's conditions ("has 5 staked"), for a gain's reason. */
export function metConditions(rule: DiscordRule, standing: Standing, at: Date): string {
  const parts: string[] = [];
  if (rule.minStaked !== undefined) parts.push(`${standing.staked} staked`);
  if (rule.minLegendary !== undefined) parts.push(`${standing.legendary} Legendary staked`);
  if (rule.minPoints !== undefined) parts.push(`${Math.floor(standing.points)} points`);
  if (rule.minStakedDays !== undefined && standing.oldestStakeSince) {
    parts.push(`${Math.floor((at.getTime() - standing.oldestStakeSince.getTime()) / DAY_MS)} days staking`);
  }
  return parts.length ? `has ${parts.join(", ")}` : "every linked member";
}

/** "DPXC…6t8A would lose Staker (needs 30 staked, has 23)": a preview's change in words. */
export function previewChangeText(change: { address: string; roleName: string; kind: "gain" | "lose"; reason: string }): string {
  const who = change.address.length > 11 ? `${change.address.slice(0, 4)}…${change.address.slice(-4)}` : change.address;
  return `${who} would ${change.kind} ${change.roleName} (${change.reason})`;
}

/** The rules' roles a standing earns, in the rules' order. */
export function earnedRoles(rules: readonly DiscordRule[], standing: Standing, at: Date): string[] {
  return rules.filter((rule) => earnsRole(rule, standing, at)).map((rule) => rule.roleId);
}

/** The conditions of a rule in words ("3+ staked, 500+ points"), for the admin tab and the CLI. */
export function describeRule(rule: DiscordRule): string {
  const parts: string[] = [];
  if (rule.minStaked !== undefined) parts.push(`${rule.minStaked}+ staked`);
  if (rule.minLegendary !== undefined) parts.push(`${rule.minLegendary}+ Legendary staked`);
  if (rule.minPoints !== undefined) parts.push(`${rule.minPoints}+ points`);
  if (rule.minStakedDays !== undefined) parts.push(`staking for ${rule.minStakedDays}+ days`);
  return parts.length ? parts.join(", ") : "every linked member";
}

/** How long a link's OAuth2 state and its link token live. */
export const DISCORD_LINK_TTL_MS = 10 * 60_000;

export function linkMessage(username: string, discordUserId: string, address: string, at: Date): string {
  return `Link Discord user ${username} (${discordUserId}) to ${address}. Timestamp: ${at.toISOString()}`;
}

export function unlinkMessage(address: string, at: Date): string {
  return `Unlink Discord from ${address}. Timestamp: ${at.toISOString()}`;
}

const UNLINK_PATTERN = new RegExp(String.raw`^Unlink Discord from (\S+)\. Timestamp: ${ISO}$`);

export function parseUnlinkMessage(message: string): { address: string; timestamp: Date } | null {
  const match = UNLINK_PATTERN.exec(message);
  if (!match) return null;
  const timestamp = parseIso(match[2]);
  return timestamp ? { address: match[1], timestamp } : null;
}

/** What a wallet signs to be shown the Discord account it is linked to (issue 32, item 4: only its owner sees it). */
export function discordAccountMessage(address: string, at: Date): string {
  return `Show the Discord account linked to ${address}. Timestamp: ${at.toISOString()}`;
}

const ACCOUNT_PATTERN = new RegExp(String.raw`^Show the Discord account linked to (\S+)\. Timestamp: ${ISO}$`);

export function parseDiscordAccountMessage(message: string): { address: string; timestamp: Date } | null {
  const match = ACCOUNT_PATTERN.exec(message);
  if (!match) return null;
  const timestamp = parseIso(match[2]);
  return timestamp ? { address: match[1], timestamp } : null;
}

const LINK_PATTERN = new RegExp(String.raw`^Link Discord user ([\s\S]+) \((\d{17,20})\) to (\S+)\. Timestamp: ${ISO}$`);

export function parseLinkMessage(message: string): { username: string; discordUserId: string; address: string; timestamp: Date } | null {
  const match = LINK_PATTERN.exec(message);
  if (!match) return null;
  const timestamp = parseIso(match[4]);
  return timestamp ? { username: match[1], discordUserId: match[2], address: match[3], timestamp } : null;
}

/** Why the bot cannot assign a role (GET /guilds/{guild}/roles), or null when it can. */
export function unassignableReason(
  role: { id: string; name: string; position: number; managed: boolean },
  guildId: string,
  botHighestPosition: number,
): string | null {
  if (role.id === guildId) return `@everyone cannot be assigned`;
  if (role.managed) return `The role ${role.name} is managed by an integration and cannot be assigned`;
  if (role.position >= botHighestPosition) {
    return `The role ${role.name} is at or above the bot's highest role (position ${role.position} ≥ ${botHighestPosition}): move the bot's role above it`;
  }
  return null;
}

/** What a failed link tells the person (GET /discord/callback sends them to /discord/linked?error={code}). */
export const LINK_FAILURES = {
  address: "That is not a Dogecoin address. Start again from the staking page with your wallet connected.",
  denied: "You cancelled the authorization in Discord: nothing was linked. Start again from the staking page when you are ready.",
  expired: "This link request has expired (they last 10 minutes). Start again from the staking page.",
  used: "This link request was already used. Start again from the staking page.",
  invalid: "This link request is not one this site started. Start again from the staking page.",
  code: "Discord did not accept this authorization (it was already used or has expired). Start again from the staking page.",
  discord: "Discord could not be reached to finish the link. Try again in a minute from the staking page.",
  browser:
    "This link was started in another browser (or its 10 minutes are over): only the browser that starts a link can finish it. Start again from the staking page.",
} as const;

/** The refusal of a link token presented by a browser that did not start the link (issue 32, item 7). */
export const OTHER_BROWSER = "This link was started in another browser: start again from the staking page";

export type LinkFailure = keyof typeof LINK_FAILURES;

export function isLinkFailure(value: string | null): value is LinkFailure {
  return value !== null && value in LINK_FAILURES;
}

/** The staking page's Discord card (its element id): where `/discord/link` without an address sends a holder. */
export const DISCORD_SECTION_ID = "discord";
