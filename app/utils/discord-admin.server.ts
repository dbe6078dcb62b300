/**
 * The admin's side of Discord holder roles (issue 25, items 3 and 6), shared by /api/admin/discord/* and
 * `spooks-admin discord`: the rules (checked against the guild's roles before saving), their preview, and
 * the status the Discord tab shows.
 */
import { now } from "../domain/clock.ts";
import { earnedRoles, type DiscordRule } from "../domain/discord.ts";
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

export async function saveRules({ sql, config }: Ctx, input: readonly DiscordRule[], actor: Actor) {
  const rules = normalizeRules(input);
  const roles = await checkRulesAssignable(discordClient(config.discord!), rules);
  await inTransaction(sql, async (tx) => {
    const before = await listRules(tx);
    await replaceRules(tx, rules);
    await recordAudit(tx, actor, "discord.rules", null, { rules: rules.length }, { before: { rules: before }, after: { rules } });
  });
  return { rules, roles };
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
  const gain: { address: string; roleId: string }[] = [];
  const lose: { address: string; roleId: string }[] = [];
  for (const member of standings) {
    const has = held.get(member.discordUserId) ?? new Set<string>();
    const earned = new Set(earnedRoles(rules, member.standing, at));
    for (const roleId of earned) if (!has.has(roleId)) gain.push({ address: member.address, roleId });
    // A role no rule names any more is left as it is: not a loss.
    for (const roleId of has) if (ruled.has(roleId) && !earned.has(roleId)) lose.push({ address: member.address, roleId });
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
