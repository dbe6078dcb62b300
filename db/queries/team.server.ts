/**
 * The admin team (migration 0035; app/domain/team.ts): its members besides the owner (ADMIN_ADDRESS, never
 * stored), and the members' sessions as the owner sees them. A member's removal and the end of their sessions
 * are one transaction.
 */
import { now } from "../../app/domain/clock.ts";
import { badRequest, notFound } from "../../app/domain/errors.ts";
import type { AssignableRole, MemberRole } from "../../app/domain/team.ts";
import type { Queryable } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { inTransaction } from "./transaction.server.ts";

export type TeamMember = { address: string; role: MemberRole; addedBy: string | null; addedAt: Date | null };

/** The role `address` holds: owner for ADMIN_ADDRESS, the stored role for a member, null for anyone else. */
export async function roleOf(sql: Queryable, ownerAddress: string, address: string): Promise<MemberRole | null> {
  if (address === ownerAddress) return "owner";
  const [row] = await sql<{ role: AssignableRole }[]>`select role from team_members where address = ${address}`;
  return row?.role ?? null;
}

/** The owner first, then the members in the order they were added. */
export async function listTeam(sql: Queryable, ownerAddress: string): Promise<TeamMember[]> {
  const rows = await sql<TeamMember[]>`
    select address, role, added_by, added_at from team_members where address <> ${ownerAddress} order by added_at, address`;
  return [{ address: ownerAddress, role: "owner", addedBy: null, addedAt: null }, ...rows];
}

/** The team's addresses, the owner's first (who may sign in to /admin, and whom the header links there). */
export async function teamAddresses(sql: Queryable, ownerAddress: string): Promise<string[]> {
  const rows = await sql<{ address: string }[]>`
    select address from team_members where address <> ${ownerAddress} order by added_at, address`;
  return [ownerAddress, ...rows.map((row) => row.address)];
}

/** Whether anyone besides the owner is on the team (the page shows the spec's single-admin panel until then). */
export async function hasTeam(sql: Queryable, ownerAddress: string): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`select exists (select 1 from team_members where address <> ${ownerAddress}) as any`;
  return row.any;
}

/** Adds `address` with `role`, or gives a member a new role; audited `team.add` / `team.role`. */
export async function addMember(
  sql: Queryable,
  input: { ownerAddress: string; address: string; role: AssignableRole; actor: Actor },
): Promise<TeamMember> {
  const { ownerAddress, address, role, actor } = input;
  if (address === ownerAddress) throw badRequest("That address is the owner (ADMIN_ADDRESS): the owner's role never changes");
  return inTransaction(sql, async (tx) => {
    const [before] = await tx<{ role: AssignableRole }[]>`select role from team_members where address = ${address} for update`;
    const addedBy = actor.kind === "web" ? actor.address : actor.kind;
    const [row] = await tx<TeamMember[]>`
      insert into team_members (address, role, added_by, added_at) values (${address}, ${role}, ${addedBy}, ${now()})
      on conflict (address) do update set role = excluded.role
      returning address, role, added_by, added_at`;
    await recordAudit(
      tx,
      actor,
      before ? "team.role" : "team.add",
      address,
      { role },
      { before: before ? { role: before.role } : null, after: { role } },
    );
    return row;
  });
}

/** Removes a member and ends their sessions at once; audited `team.remove`. The owner is never removed (400). */
export async function removeMember(
  sql: Queryable,
  input: { ownerAddress: string; address: string; actor: Actor },
): Promise<{ address: string; sessionsEnded: number }> {
  const { ownerAddress, address, actor } = input;
  if (address === ownerAddress) throw badRequest("The owner (ADMIN_ADDRESS) cannot be removed from the team");
  return inTransaction(sql, async (tx) => {
    const [removed] = await tx<{ role: AssignableRole }[]>`delete from team_members where address = ${address} returning role`;
    if (!removed) throw notFound("No member has that address");
    const ended = await endSessionsOf(tx, address);
    await recordAudit(tx, actor, "team.remove", address, { sessionsEnded: ended }, { before: { role: removed.role }, after: null });
    return { address, sessionsEnded: ended };
  });
}

async function endSessionsOf(sql: Queryable, address: string): Promise<number> {
  const rows = await sql`
    update sessions set revoked_at = ${now()} where address = ${address} and revoked_at is null and expires_at > ${now()} returning 1`;
  return rows.length;
}

// Sessions --------------------------------------------------------------------------------------------

export type SessionListing = {
  /** The session's reference: a prefix of its token's hash, as the sign-in and sign-out audit rows name it. */
  id: string;
  address: string;
  role: MemberRole | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
};

export const SESSION_REFERENCE_LENGTH = 12;

/** The live sessions (of `address` alone when given), newest first, with their holder's role now. */
export async function listSessions(sql: Queryable, ownerAddress: string, address?: string): Promise<SessionListing[]> {
  const at = now();
  const rows = await sql<(Omit<SessionListing, "role"> & { memberRole: AssignableRole | null })[]>`
    select left(s.token_hash, ${SESSION_REFERENCE_LENGTH}) as id, s.address, s.created_at,
           coalesce(s.last_seen_at, s.created_at) as last_seen_at, s.expires_at, s.user_agent, m.role as member_role
    from sessions s left join team_members m on m.address = s.address
    where s.revoked_at is null and s.expires_at > ${at} ${address ? sql`and s.address = ${address}` : sql``}
    order by s.created_at desc
    limit 500`;
  return rows.map(({ memberRole, ...row }) => ({ ...row, role: row.address === ownerAddress ? "owner" : memberRole }));
}

/** Ends the live session whose reference is `id`; answers whose it was, or null when there is none. */
export async function endSessionByReference(sql: Queryable, id: string): Promise<{ address: string; tokenHash: string } | null> {
  const [row] = await sql<{ address: string; tokenHash: string }[]>`
    with found as (
      select token_hash from sessions where starts_with(token_hash, ${id}) and revoked_at is null and expires_at > ${now()} limit 2)
    update sessions set revoked_at = ${now()}
    where token_hash in (select token_hash from found) and (select count(*) from found) = 1
    returning address, token_hash`;
  return row ?? null;
}

/** Whose live session `id` names, without ending it (to judge who may end it). */
export async function sessionOwner(sql: Queryable, id: string): Promise<string | null> {
  const rows = await sql<{ address: string }[]>`
    select address from sessions where starts_with(token_hash, ${id}) and revoked_at is null and expires_at > ${now()} limit 2`;
  return rows.length === 1 ? rows[0].address : null;
}
