/** Sign-in challenges, sessions (tokens stored hashed) and used signatures (each accepted once). */
import { now } from "../../app/domain/clock.ts";
import type { AssignableRole } from "../../app/domain/team.ts";
import type { Queryable } from "../client.server.ts";

export type StoredChallenge = {
  nonce: string;
  address: string;
  message: string;
  issuedAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
};

export type SessionRow = {
  address: string;
  expiresAt: Date;
  /** When the session was last used (its creation until then). */
  lastSeenAt: Date;
  /** The stored team role of its address (null for the owner, whose role is ADMIN_ADDRESS's, and for non-members). */
  memberRole: AssignableRole | null;
};

export async function insertChallenge(sql: Queryable, challenge: Omit<StoredChallenge, "usedAt">): Promise<void> {
  await sql`
    insert into auth_challenges (nonce, address, message, issued_at, expires_at)
    values (${challenge.nonce}, ${challenge.address}, ${challenge.message}, ${challenge.issuedAt}, ${challenge.expiresAt})`;
}

/** How many dead rows of each table one clean-up removes at most (so no call ever takes long). */
export const AUTH_CLEANUP_BATCH = 500;

/**
 * Deletes up to `limit` expired challenges, oldest first, through the expires_at index (migration 0004): the
 * cost is that of the rows removed, never of the table's size. Answers how many went.
 */
export async function deleteExpiredChallenges(sql: Queryable, at: Date, limit: number): Promise<{ count: number }> {
  return sql`
    delete from auth_challenges where nonce in (
      select nonce from auth_challenges where expires_at <= ${at} order by expires_at limit ${limit})`;
}

/** The same for sessions (revoked ones go when they expire). */
export async function deleteExpiredSessions(sql: Queryable, at: Date, limit: number): Promise<{ count: number }> {
  return sql`
    delete from sessions where token_hash in (
      select token_hash from sessions where expires_at <= ${at} order by expires_at limit ${limit})`;
}

/** One bounded clean-up of both (up to `limit` rows of each), as a sign-in challenge does it. */
export async function deleteExpiredAuthRows(
  sql: Queryable,
  at: Date,
  limit = AUTH_CLEANUP_BATCH,
): Promise<{ challenges: number; sessions: number }> {
  const challenges = await deleteExpiredChallenges(sql, at, limit);
  const sessions = await deleteExpiredSessions(sql, at, limit);
  return { challenges: challenges.count, sessions: sessions.count };
}

/**
 * Marks the challenge used and answers it, or null when no unused, unexpired challenge has exactly this
 * nonce, address and text (atomic: two sign-ins with one nonce cannot both succeed).
 */
export async function consumeChallenge(
  sql: Queryable,
  { nonce, address, message }: { nonce: string; address: string; message: string },
): Promise<StoredChallenge | null> {
  const at = now();
  const [row] = await sql<StoredChallenge[]>`
    update auth_challenges set used_at = ${at}
    where nonce = ${nonce} and address = ${address} and message = ${message}
      and used_at is null and expires_at > ${at}
    returning nonce, address, message, issued_at, expires_at, used_at`;
  return row ?? null;
}

export async function insertSession(
  sql: Queryable,
  session: { tokenHash: string; address: string; expiresAt: Date; userAgent?: string | null },
): Promise<void> {
  const at = now();
  await sql`
    insert into sessions (token_hash, address, created_at, expires_at, user_agent, last_seen_at)
    values (${session.tokenHash}, ${session.address}, ${at}, ${session.expiresAt}, ${session.userAgent ?? null}, ${at})`;
}

/** The live session with this token hash, and the team role its address holds now (membership is read on every request). */
export async function findSession(sql: Queryable, tokenHash: string): Promise<SessionRow | null> {
  const [row] = await sql<SessionRow[]>`
    select s.address, s.expires_at, coalesce(s.last_seen_at, s.created_at) as last_seen_at, m.role as member_role
    from sessions s left join team_members m on m.address = s.address
    where s.token_hash = ${tokenHash} and s.revoked_at is null and s.expires_at > ${now()}`;
  return row ?? null;
}

/** Records that the session was used now (the sessions list's "last seen"). */
export async function touchSession(sql: Queryable, tokenHash: string, at: Date): Promise<void> {
  await sql`update sessions set last_seen_at = ${at} where token_hash = ${tokenHash} and revoked_at is null`;
}

/** Revokes the session; answers whose it was, or null when there was no live session with that token. */
export async function revokeSession(sql: Queryable, tokenHash: string): Promise<string | null> {
  const [row] = await sql<{ address: string }[]>`
    update sessions set revoked_at = ${now()}
    where token_hash = ${tokenHash} and revoked_at is null and expires_at > ${now()}
    returning address`;
  return row?.address ?? null;
}

/**
 * Records a signature as used; false when this address already used this message (a replay). Call it
 * in the action's transaction, so a refused action leaves the signature unused.
 */
export async function recordUsedSignature(
  sql: Queryable,
  entry: { address: string; message: string; signature: string; action: string },
): Promise<boolean> {
  const rows = await sql`
    insert into used_signatures (address, message, signature, action, used_at)
    values (${entry.address}, ${entry.message}, ${entry.signature}, ${entry.action}, ${now()})
    on conflict do nothing
    returning 1`;
  return rows.length === 1;
}
