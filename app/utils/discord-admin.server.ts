/**
 * The admin's side of Discord holder roles (issue 25, items 3 and 6), shared by /api/admin/discord/* and
 * `spooks-admin discord`: the rules (checked against the guild's roles before saving), their preview, and
 * the status the Discord tab shows.
 */
import { now } from "../domain/clock.ts";
import { conflict } from "../domain/errors.ts";
import { earnedRoles, metConditions, unmetConditions, type DiscordRule } from "../domain/discord.ts";
import type { Queryable, Sql } from "../../db/client.server.ts";
import { recordAudit, type Actor } from "../../db/queries/audit.server.ts";
import {
  lastSweep,
  linkedStandings,
  listGrants,
  listLinks,
  listProblems,
  listRules,
  replaceRules,
} from "../../db/queries/discord.server.ts";
import { inTransaction } from "../../db/queries/transaction.server.ts";
import { checkRulesAssignable, discordClient, type GuildRole } from "./discord.server.ts";
import type { DiscordConfig } from "./env.server.ts";

type Ctx = { sql: Sql; config: { discord?: DiscordConfig } };

/** The rules as given, without the conditions left out (undefined) or explicitly absent. */
export function normalizeRules(rules: readonly DiscordRule[]): DiscordRule[] {
  return rules.map((rule) => {
    const clean: DiscordRule = { roleId: rule.roleId };
    for (const key of ["minStaked", "minPoints", "minLegendary", "minStakedDays"] as const)
      if (rule[key] !== undefined) clean[key] = rule[key];
    return clean;
  });
}

export async function readRules({ sql, config }: Ctx): Promise<{ rules: DiscordRule[]; roles: GuildRole[] | null }> {
  const rules = await listRules(sql);
  const roles = config.discord
    ? await discordClient(config.discord)
        .guildRoles()
        .catch(() => null)
    : null;
  return { rules, roles };
}

export type CheckedRules = { rules: DiscordRule[]; roles: GuildRole[] };

/**
 * The rules normalized and checked against the guild's roles, which Discord is asked for: call it before any
 * transaction (an approval's included), never inside one. Refuses (400) a role the bot cannot assign.
 */
export async function checkRules(config: Ctx["config"], input: readonly DiscordRule[]): Promise<CheckedRules> {
  if (!config.discord) throw conflict("Discord roles are off on this server (DISCORD_* is not set): no rules can be saved");
  const rules = normalizeRules(input);
  return { rules, roles: await checkRulesAssignable(discordClient(config.discord), rules) };
}

/** Replaces the rules with checked ones and audits it, in one transaction (the caller's when it holds one). */
export async function storeRules(sql: Queryable, checked: CheckedRules, actor: Actor): Promise<CheckedRules> {
  await inTransaction(sql, async (tx) => {
    const before = await listRules(tx);
    await replaceRules(tx, checked.rules);
    await recordAudit(
      tx,
      actor,
      "discord.rules",
      null,
      { rules: checked.rules.length },
      { before: { rules: before }, after: { rules: checked.rules } },
    );
  });
  return checked;
}

export async function saveRules({ sql, config }: Ctx, input: readonly DiscordRule[], actor: Actor): Promise<CheckedRules> {
  return storeRules(sql, await checkRules(config, input), actor);
}

/** Gains and losses against the roles granted now (what the sync would do once they are saved). */
export async function previewRules(sql: Queryable, input: readonly DiscordRule[]) {
  const rules = normalizeRules(input);
  const at = now();
  const [standings, grants] = await Promise.all([linkedStandings(sql), listGrants(sql)]);
  const held = new Map<string, Set<string>>();
  for (const grant of grants) {
    if (!held.has(grant.discordUserId)) held.set(grant.discordUserId, new Set());
    held.get(grant.discordUserId)!.add(grant.roleId);
  }
  const ruled = new Set(rules.map((rule) => rule.roleId));
  const gain: { address: string; roleId: string; reason: string }[] = [];
  const lose: { address: string; roleId: string; reason: string }[] = [];
  for (const member of standings) {
    const has = held.get(member.discordUserId) ?? new Set<string>();
    const earned = new Set(earnedRoles(rules, member.standing, at));
    const ruleOf = (roleId: string) => rules.find((rule) => rule.roleId === roleId)!;
    for (const roleId of earned) {
      if (!has.has(roleId)) gain.push({ address: member.address, roleId, reason: metConditions(ruleOf(roleId), member.standing, at) });
    }
    // A role no rule names any more is left as it is: not a loss.
    for (const roleId of has) {
      if (ruled.has(roleId) && !earned.has(roleId)) {
        // The rules naming the role that the member misses (every one, when several name it).
        const reasons = rules.filter((rule) => rule.roleId === roleId).flatMap((rule) => unmetConditions(rule, member.standing, at));
        lose.push({ address: member.address, roleId, reason: reasons.join("; ") });
      }
    }
  }
  return { gain, lose };
}

export async function discordStatus(sql: Queryable) {
  const [links, grants, sweep, problems] = await Promise.all([listLinks(sql), listGrants(sql), lastSweep(sql), listProblems(sql)]);
  const held = new Map<string, string[]>();
  for (const grant of grants) held.set(grant.discordUserId, [...(held.get(grant.discordUserId) ?? []), grant.roleId]);
  return {
    links: links.map((link) => ({
      address: link.address,
      discordUserId: link.discordUserId,
      username: link.username,
      linkedAt: link.linkedAt,
      inGuild: link.absentSince === null,
      roles: held.get(link.discordUserId) ?? [],
    })),
    lastSweep: sweep,
    problems: problems.map((problem) => ({
      kind: problem.kind,
      roleId: problem.roleId,
      message: problem.message,
      since: problem.firstSeen,
    })),
  };
}
