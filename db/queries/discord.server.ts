/**
 * Discord holder roles (issue 25): link states and tokens, links, rules, the roles the sync granted, the
 * problems Discord reported, and sweeps. Each function takes the pool or a transaction (the caller's scope).
 */
import { withoutControlCharacters } from "../../app/domain/terminal-text.ts";
import { UNITS_PER_POINT } from "../../app/domain/rewards.ts";
import type { DiscordRule, Standing } from "../../app/domain/discord.ts";
import type { Queryable } from "../client.server.ts";

// Link states and tokens ------------------------------------------------------------------------------

export async function insertOAuthState(
  sql: Queryable,
  row: { stateHash: string; address: string; browserSha256: string; createdAt: Date; expiresAt: Date },
) {
  await sql`
    insert into discord_oauth_states (state_hash, address, browser_sha256, created_at, expires_at)
    values (${row.stateHash}, ${row.address}, ${row.browserSha256}, ${row.createdAt}, ${row.expiresAt})`;
  await sql`delete from discord_oauth_states where expires_at < ${row.createdAt} - interval '1 day'`;
}

export type StateUse = { kind: "ok"; address: string } | { kind: "unknown" | "used" | "expired" | "browser" };

/**
 * Uses a state once, whoever presents it: answers its address when `browserSha256` is the browser it was
 * started in (its cookie's hash), or why it cannot be used.
 */
export async function consumeOAuthState(sql: Queryable, stateHash: string, browserSha256: string | null, at: Date): Promise<StateUse> {
  const [row] = await sql<{ address: string; browserSha256: string | null; expiresAt: Date; usedAt: Date | null }[]>`
    select address, browser_sha256, expires_at, used_at from discord_oauth_states where state_hash = ${stateHash} for update`;
  if (!row) return { kind: "unknown" };
  if (row.usedAt) return { kind: "used" };
  await sql`update discord_oauth_states set used_at = ${at} where state_hash = ${stateHash}`;
  if (row.expiresAt.getTime() < at.getTime()) return { kind: "expired" };
  if (row.browserSha256 === null || row.browserSha256 !== browserSha256) return { kind: "browser" };
  return { kind: "ok", address: row.address };
}

export type PendingLink = {
  address: string;
  /** SHA-256 of the cookie of the browser that started the link (null: a row from before the binding). */
  browserSha256: string | null;
  discordUserId: string;
  username: string;
  message: string;
  expiresAt: Date;
  usedAt: Date | null;
};

export async function insertPendingLink(
  sql: Queryable,
  row: {
    tokenHash: string;
    address: string;
    browserSha256: string;
    discordUserId: string;
    username: string;
    message: string;
    createdAt: Date;
    expiresAt: Date;
  },
) {
  await sql`
    insert into discord_pending_links (token_hash, address, browser_sha256, discord_user_id, username, message, created_at, expires_at)
    values (${row.tokenHash}, ${row.address}, ${row.browserSha256}, ${row.discordUserId}, ${row.username}, ${row.message},
            ${row.createdAt}, ${row.expiresAt})`;
  await sql`delete from discord_pending_links where expires_at < ${row.createdAt} - interval '1 day'`;
}

export async function findPendingLink(sql: Queryable, tokenHash: string, lock = false): Promise<PendingLink | null> {
  const [row] = lock
    ? await sql<PendingLink[]>`
        select address, browser_sha256, discord_user_id, username, message, expires_at, used_at from discord_pending_links
        where token_hash = ${tokenHash} for update`
    : await sql<PendingLink[]>`
        select address, browser_sha256, discord_user_id, username, message, expires_at, used_at from discord_pending_links
        where token_hash = ${tokenHash}`;
  return row ?? null;
}

export async function markPendingLinkUsed(sql: Queryable, tokenHash: string, at: Date) {
  await sql`update discord_pending_links set used_at = ${at} where token_hash = ${tokenHash}`;
}

// Links -----------------------------------------------------------------------------------------------

export type DiscordLink = { address: string; discordUserId: string; username: string; linkedAt: Date; absentSince: Date | null };

export async function findLinkByAddress(sql: Queryable, address: string): Promise<DiscordLink | null> {
  const [row] = await sql<DiscordLink[]>`
    select address, discord_user_id, username, linked_at, absent_since from discord_links where address = ${address}`;
  return row ?? null;
}

/**
 * Links `address` to the Discord user, replacing the address's former account and the user's former wallet
 * (one each way). Answers what was replaced (for the audit trail).
 */
export async function upsertLink(
  sql: Queryable,
  link: { address: string; discordUserId: string; username: string; at: Date },
): Promise<{ formerUserOfAddress: string | null; formerAddressOfUser: string | null }> {
  const [former] = await sql<{ discordUserId: string }[]>`
    delete from discord_links where address = ${link.address} returning discord_user_id`;
  const [other] = await sql<{ address: string }[]>`
    delete from discord_links where discord_user_id = ${link.discordUserId} returning address`;
  await sql`
    insert into discord_links (address, discord_user_id, username, linked_at)
    values (${link.address}, ${link.discordUserId}, ${link.username}, ${link.at})`;
  return { formerUserOfAddress: former?.discordUserId ?? null, formerAddressOfUser: other?.address ?? null };
}

export async function deleteLink(sql: Queryable, address: string): Promise<DiscordLink | null> {
  const [row] = await sql<DiscordLink[]>`
    delete from discord_links where address = ${address}
    returning address, discord_user_id, username, linked_at, absent_since`;
  return row ?? null;
}

export async function listLinks(sql: Queryable): Promise<DiscordLink[]> {
  return sql<
    DiscordLink[]
  >`select address, discord_user_id, username, linked_at, absent_since from discord_links order by linked_at desc, address`;
}

export async function countLinks(sql: Queryable): Promise<number> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from discord_links`;
  return row.count;
}

export async function markAbsent(sql: Queryable, discordUserId: string, at: Date) {
  await sql`update discord_links set absent_since = coalesce(absent_since, ${at}) where discord_user_id = ${discordUserId}`;
}

export async function markPresent(sql: Queryable, discordUserId: string) {
  await sql`update discord_links set absent_since = null where discord_user_id = ${discordUserId} and absent_since is not null`;
}

// Standing ----------------------------------------------------------------------------------------------

export type LinkedStanding = { address: string; discordUserId: string; absent: boolean; standing: Standing };

/** Every linked member's standing as the rules read it (one query). */
export async function linkedStandings(sql: Queryable, addresses?: string[]): Promise<LinkedStanding[]> {
  const rows = await sql<
    { address: string; discordUserId: string; absent: boolean; staked: number; legendary: number; oldest: Date | null; units: number }[]
  >`
    select l.address, l.discord_user_id, l.absent_since is not null as absent,
           coalesce(s.staked, 0)::int as staked, coalesce(s.legendary, 0)::int as legendary, s.oldest,
           coalesce(b.units, 0)::int8 as units
    from discord_links l
    left join lateral (
      select count(*) as staked, count(*) filter (where i.rarity = 'Legendary') as legendary, min(st.started_at) as oldest
      from stakes st join items i on i.id = st.item_id
      where st.address = l.address and st.ended_at is null
    ) s on true
    left join wallet_balances b on b.address = l.address
    ${addresses ? sql`where l.address = any(${addresses})` : sql``}
    order by l.discord_user_id`;
  return rows.map((row) => ({
    address: row.address,
    discordUserId: row.discordUserId,
    absent: row.absent,
    standing: { staked: row.staked, legendary: row.legendary, points: Number(row.units) / UNITS_PER_POINT, oldestStakeSince: row.oldest },
  }));
}

// Rules -----------------------------------------------------------------------------------------------

type RuleRow = {
  roleId: string;
  minStaked: number | null;
  minPoints: number | null;
  minLegendary: number | null;
  minStakedDays: number | null;
};

const ruleOf = (row: RuleRow): DiscordRule => ({
  roleId: row.roleId,
  ...(row.minStaked !== null && { minStaked: row.minStaked }),
  ...(row.minPoints !== null && { minPoints: Number(row.minPoints) }),
  ...(row.minLegendary !== null && { minLegendary: row.minLegendary }),
  ...(row.minStakedDays !== null && { minStakedDays: row.minStakedDays }),
});

export async function listRules(sql: Queryable): Promise<DiscordRule[]> {
  const rows = await sql<RuleRow[]>`
    select role_id, min_staked, min_points, min_legendary, min_staked_days from discord_rules order by position`;
  return rows.map(ruleOf);
}

/** Replaces the rules; forgets grants of roles no rule names any more (those roles are never touched again). */
export async function replaceRules(sql: Queryable, rules: DiscordRule[]) {
  await sql`delete from discord_rules`;
  if (rules.length) {
    const rows = rules.map((rule, position) => ({
      roleId: rule.roleId,
      position,
      minStaked: rule.minStaked ?? null,
      minPoints: rule.minPoints ?? null,
      minLegendary: rule.minLegendary ?? null,
      minStakedDays: rule.minStakedDays ?? null,
    }));
    await sql`insert into discord_rules ${sql(rows, "roleId", "position", "minStaked", "minPoints", "minLegendary", "minStakedDays")}`;
  }
  await sql`delete from discord_role_grants g where not exists (select 1 from discord_rules r where r.role_id = g.role_id)`;
  // Saving checked every role against the guild: what was reported unassignable is judged afresh.
  await sql`delete from discord_problems where kind = 'role-unassignable'`;
}

// Grants ----------------------------------------------------------------------------------------------

export async function listGrants(sql: Queryable): Promise<{ discordUserId: string; roleId: string }[]> {
  return sql<{ discordUserId: string; roleId: string }[]>`select discord_user_id, role_id from discord_role_grants`;
}

export async function addGrant(sql: Queryable, discordUserId: string, roleId: string, at: Date) {
  await sql`
    insert into discord_role_grants (discord_user_id, role_id, granted_at) values (${discordUserId}, ${roleId}, ${at})
    on conflict do nothing`;
}

export async function removeGrant(sql: Queryable, discordUserId: string, roleId: string) {
  await sql`delete from discord_role_grants where discord_user_id = ${discordUserId} and role_id = ${roleId}`;
}

export async function grantsOf(sql: Queryable, discordUserId: string): Promise<string[]> {
  const rows = await sql<{ roleId: string }[]>`select role_id from discord_role_grants where discord_user_id = ${discordUserId}`;
  return rows.map((row) => row.roleId);
}

// Problems --------------------------------------------------------------------------------------------

export type DiscordProblem = {
  key: string;
  kind: "role-unassignable" | "bad-token";
  roleId: string | null;
  message: string;
  firstSeen: Date;
};

/** Records a problem once; answers whether it is new. */
export async function reportProblem(sql: Queryable, problem: Omit<DiscordProblem, "firstSeen">, at: Date): Promise<boolean> {
  const rows = await sql`
    insert into discord_problems (key, kind, role_id, message, first_seen)
    values (${problem.key}, ${problem.kind}, ${problem.roleId}, ${withoutControlCharacters(problem.message)}, ${at})
    on conflict (key) do nothing returning key`;
  return rows.length > 0;
}

export async function listProblems(sql: Queryable): Promise<DiscordProblem[]> {
  return sql<DiscordProblem[]>`select key, kind, role_id, message, first_seen from discord_problems order by first_seen`;
}

export async function clearProblem(sql: Queryable, key: string) {
  await sql`delete from discord_problems where key = ${key}`;
}

// Sweeps ----------------------------------------------------------------------------------------------

export type SweepSource = "scheduled" | "cli" | "startup";

export type SweepRecord = {
  startedAt: Date;
  finishedAt: Date;
  source: SweepSource;
  members: number;
  absent: number;
  added: number;
  removed: number;
  difference: number;
  requests: number;
  errors: number;
};

export async function insertSweep(sql: Queryable, sweep: SweepRecord) {
  await sql`
    insert into discord_sweeps ${sql(sweep, "startedAt", "finishedAt", "source", "members", "absent", "added", "removed", "difference", "requests", "errors")}`;
  await sql`delete from discord_sweeps where id < (select max(id) - 100 from discord_sweeps)`;
}

export async function lastSweep(sql: Queryable): Promise<SweepRecord | null> {
  const [row] = await sql<SweepRecord[]>`
    select started_at, finished_at, source, members, absent, added, removed, difference, requests, errors
    from discord_sweeps order by id desc limit 1`;
  return row ?? null;
}
