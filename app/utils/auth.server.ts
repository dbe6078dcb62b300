/**
 * Who is acting. Holders prove an action by signing its exact message (checked here, recorded as used in
 * the action's own transaction); a member of the admin team (the owner, ADMIN_ADDRESS, or a member the owner
 * added: app/domain/team.ts) signs a one-time challenge and then holds a session cookie, judged by the role the
 * address holds at each request.
 * Nothing in a body (an address, an `adminAddress`) is trusted without that proof. docs/security.md says
 * what each proof is worth.
 *
 * Challenges and cookies are bound to the site's one public origin (PUBLIC_URL, else the request's own
 * origin as server/request-handler.ts builds it from trusted proxy headers); a cookie-authorized change
 * must also pass the cross-site check in ./csrf.server.ts.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AppLoadContext } from "react-router";
import { now } from "../domain/clock.ts";
import { forbidden, unauthorized } from "../domain/errors.ts";
import { isFreshTimestamp, parseSignInMessage, SIGN_IN_STATEMENT, signInMessage } from "../domain/messages.ts";
import { verifySignedMessage } from "../domain/signature.ts";
import { NOT_A_MEMBER, refusalFor, type MemberRole, type Requirement } from "../domain/team.ts";
import type { Queryable } from "../../db/client.server.ts";
import { recordAudit, type Actor } from "../../db/queries/audit.server.ts";
import {
  consumeChallenge,
  deleteExpiredAuthRows,
  findSession,
  insertChallenge,
  insertSession,
  recordUsedSignature,
  revokeSession,
  touchSession,
} from "../../db/queries/auth.server.ts";
import { roleOf, SESSION_REFERENCE_LENGTH } from "../../db/queries/team.server.ts";
import { inTransaction } from "../../db/queries/transaction.server.ts";
import { requireSameSiteRequest, siteOf, type BodyKind } from "./csrf.server.ts";

export const CHALLENGE_TTL_MS = 10 * 60 * 1000;
/** The session cookie's name over http (development) and over https, where the `__Host-` prefix makes
 * the browser insist on Secure, Path=/ and no Domain (no sibling host or plain-http page can plant it). */
export const SESSION_COOKIE = "spooks_session";
export const SECURE_SESSION_COOKIE = "__Host-spooks_session";

export type WebActor = Extract<Actor, { kind: "web" }>;

export type SignedInput = { address: string; message: string; signature: string };

/**
 * Checks that `signature` over `message` is the acting address's, that the message parses as the
 * expected kind, and that its timestamp is within 10 minutes of server time. Answers the parsed message.
 * A bad signature throws SignatureError, which the API answers 401 like every refusal here.
 */
export function verifySignedAction<T extends { timestamp: Date }>(
  input: SignedInput,
  parse: (message: string) => T | null,
  kind: string,
): T {
  const parsed = parse(input.message);
  if (!parsed) throw unauthorized(`The signed message is not a ${kind} message`);
  verifySignedMessage(input.message, input.address, input.signature);
  if (!isFreshTimestamp(parsed.timestamp, now())) {
    throw unauthorized("The signed message has expired: its timestamp is more than 10 minutes from server time");
  }
  return parsed;
}

/** Marks the signature used; a second use is a replay (401). Call inside the action's transaction. */
export async function consumeSignature(tx: Queryable, input: SignedInput & { action: string }): Promise<void> {
  const fresh = await recordUsedSignature(tx, input);
  if (!fresh) throw unauthorized("This signature has already been used");
}

// Sign-in ------------------------------------------------------------------------------------------

const NONCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

function newNonce(length = 24): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => NONCE_ALPHABET[byte % NONCE_ALPHABET.length]).join("");
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * How the audit trail and the sessions list name a session, so a sign-in, its sign-out and its listing pair
 * up: a prefix of its token's hash.
 */
export const sessionReference = (tokenHash: string) => tokenHash.slice(0, SESSION_REFERENCE_LENGTH);

/** The words of every refused sign-in of a non-member, team or no team (the spec's single-admin text). */
const NOT_ADMIN_WALLET = "Only the admin wallet can sign in";

/** The role `address` holds on the team now (owner, a member's role), or null. */
export function teamRoleOf(context: AppLoadContext, address: string): Promise<MemberRole | null> {
  return roleOf(context.sql, context.config.adminAddress, address);
}

/** A one-time sign-in message for a member of the admin team; any other address gets 403 and nothing is stored. */
export async function createChallenge(
  request: Request,
  context: AppLoadContext,
  address: string,
): Promise<{ message: string; expiresAt: Date }> {
  if (!(await teamRoleOf(context, address))) throw forbidden(NOT_ADMIN_WALLET);
  const site = siteOf(request, context);
  const issuedAt = now();
  const expiresAt = new Date(issuedAt.getTime() + CHALLENGE_TTL_MS);
  const nonce = newNonce();
  const message = signInMessage({
    domain: site.host,
    address,
    statement: SIGN_IN_STATEMENT,
    uri: site.origin,
    nonce,
    issuedAt,
    expirationTime: expiresAt,
  });
  await insertChallenge(context.sql, { nonce, address, message, issuedAt, expiresAt });
  // Every new row pays for the removal of up to a batch of dead ones (indexed on expires_at).
  await deleteExpiredAuthRows(context.sql, issuedAt);
  return { message, expiresAt };
}

/** The cookie's name on this site: `__Host-…` whenever the site is https. */
function sessionCookieName(request: Request, context: AppLoadContext): string {
  return siteOf(request, context).protocol === "https:" ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

function cookieHeader(request: Request, context: AppLoadContext, value: string, maxAgeSeconds: number): string {
  const name = sessionCookieName(request, context);
  const secure = name === SECURE_SESSION_COOKIE ? "; Secure" : "";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * Verifies a signed challenge against the one the server issued and opens a session; answers its
 * Set-Cookie. Refused (401, nothing stored, the challenge left unused): a message for another site
 * (domain or URI), another address, a nonce the server did not issue, any changed field or time, an
 * expired or used challenge, a bad signature.
 */
export async function signIn(
  request: Request,
  context: AppLoadContext,
  input: SignedInput,
): Promise<{ address: string; isAdmin: boolean; role: MemberRole; setCookie: string }> {
  const challenge = parseSignInMessage(input.message);
  if (!challenge || challenge.address !== input.address) throw unauthorized("The signed message is not this address's sign-in challenge");
  const site = siteOf(request, context);
  if (challenge.domain !== site.host || challenge.uri !== site.origin) {
    throw unauthorized(`This sign-in message is for ${challenge.domain}, not this site (${site.host})`);
  }
  const role = await teamRoleOf(context, input.address);
  if (!role) throw forbidden(NOT_ADMIN_WALLET);
  verifySignedMessage(input.message, input.address, input.signature);
  const token = randomBytes(32).toString("base64url");
  const ttlMs = context.config.sessionTtlMs;
  await inTransaction(context.sql, async (tx) => {
    // The stored text is what the server issued: equal text means equal domain, URI, nonce, address and times.
    const stored = await consumeChallenge(tx, { nonce: challenge.nonce, address: input.address, message: input.message });
    if (!stored) throw unauthorized("This sign-in challenge is unknown, expired or already used");
    const userAgent = request.headers.get("user-agent")?.slice(0, USER_AGENT_MAX) || null;
    const session = { tokenHash: hashToken(token), address: input.address, expiresAt: new Date(now().getTime() + ttlMs), userAgent };
    await insertSession(tx, session);
    await recordAudit(tx, { kind: "web", address: input.address }, "auth.sign-in", input.address, {
      session: sessionReference(session.tokenHash),
      expiresAt: session.expiresAt,
      ip: context.clientIp ?? null,
    });
  });
  return {
    address: input.address,
    isAdmin: true,
    role,
    setCookie: cookieHeader(request, context, token, Math.floor(ttlMs / 1000)),
  };
}

function sessionToken(request: Request, context: AppLoadContext): string | null {
  const wanted = sessionCookieName(request, context);
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === wanted) return rest.join("=") || null;
  }
  return null;
}

/** How long a session's "last seen" may lag: it is written at most this often, not on every request. */
const LAST_SEEN_GRANULARITY_MS = 60_000;
const USER_AGENT_MAX = 500;

/** The signed-in address and the team role it holds now (null: no longer a member), or null without a live session. */
export async function sessionMember(
  request: Request,
  context: AppLoadContext,
): Promise<{ address: string; role: MemberRole | null } | null> {
  const token = sessionToken(request, context);
  if (!token) return null;
  const tokenHash = hashToken(token);
  const session = await findSession(context.sql, tokenHash);
  if (!session) return null;
  const at = now();
  if (at.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_GRANULARITY_MS) await touchSession(context.sql, tokenHash, at);
  const role = session.address === context.config.adminAddress ? "owner" : session.memberRole;
  return { address: session.address, role };
}

/** The signed-in address, or null. */
export async function sessionAddress(request: Request, context: AppLoadContext): Promise<string | null> {
  return (await sessionMember(request, context))?.address ?? null;
}

/** The token hash of the request's session cookie (to tell the caller's own session in the sessions list), or null. */
export function sessionTokenHash(request: Request, context: AppLoadContext): string | null {
  const token = sessionToken(request, context);
  return token ? hashToken(token) : null;
}

/** Ends the session (if any): it is revoked in the database, with its audit row, and the cookie cleared. */
export async function signOut(request: Request, context: AppLoadContext): Promise<string> {
  requireSameSiteRequest(request, context, "json");
  const token = sessionToken(request, context);
  if (token) {
    const tokenHash = hashToken(token);
    await inTransaction(context.sql, async (tx) => {
      const address = await revokeSession(tx, tokenHash);
      if (address) {
        const details = { session: sessionReference(tokenHash), ip: context.clientIp ?? null };
        await recordAudit(tx, { kind: "web", address }, "auth.sign-out", address, details);
      }
    });
  }
  return cookieHeader(request, context, "", 0);
}

/** A signed-in member of the admin team: the audit actor, with the role the request is judged by. */
export type AdminActor = WebActor & { role: MemberRole };

/**
 * 401 without a session, 403 when the session's address is not on the admin team now (a removed member, or
 * ADMIN_ADDRESS changed since): membership is read on every request, not only at sign-in. With `requirement`,
 * 403 naming the role when it lacks the permission ("A moderator cannot add points"). A state-changing request
 * must first pass the cross-site check (403 foreign origin, 415 wrong body type), before anything is read or
 * changed. Answers the audit actor.
 */
export async function requireAdmin(
  request: Request,
  context: AppLoadContext,
  body: BodyKind = "json",
  requirement?: Requirement,
): Promise<AdminActor> {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") requireSameSiteRequest(request, context, body);
  const member = await sessionMember(request, context);
  if (!member) throw unauthorized("Sign in as the admin first");
  if (!member.role) throw forbidden(NOT_A_MEMBER);
  const refusal = requirement ? refusalFor(member.role, requirement) : null;
  if (refusal) throw forbidden(refusal);
  return { kind: "web", address: member.address, role: member.role };
}
