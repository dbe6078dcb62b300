/**
 * Who is acting. Holders prove an action by signing its exact message (checked here, recorded as used in
 * the action's own transaction); the admin signs a one-time challenge and then holds a session cookie.
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
} from "../../db/queries/auth.server.ts";
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

/** How the audit trail names a session, so a sign-in and its sign-out pair up: a prefix of its token's hash. */
const sessionReference = (tokenHash: string) => tokenHash.slice(0, 12);

/** A one-time sign-in message for the admin; any other address gets 403 and nothing is stored. */
export async function createChallenge(
  request: Request,
  context: AppLoadContext,
  address: string,
): Promise<{ message: string; expiresAt: Date }> {
  if (address !== context.config.adminAddress) throw forbidden("Only the admin wallet can sign in");
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
): Promise<{ address: string; isAdmin: boolean; setCookie: string }> {
  const challenge = parseSignInMessage(input.message);
  if (!challenge || challenge.address !== input.address) throw unauthorized("The signed message is not this address's sign-in challenge");
  const site = siteOf(request, context);
  if (challenge.domain !== site.host || challenge.uri !== site.origin) {
    throw unauthorized(`This sign-in message is for ${challenge.domain}, not this site (${site.host})`);
  }
  if (input.address !== context.config.adminAddress) throw forbidden("Only the admin wallet can sign in");
  verifySignedMessage(input.message, input.address, input.signature);
  const token = randomBytes(32).toString("base64url");
  const ttlMs = context.config.sessionTtlMs;
  await inTransaction(context.sql, async (tx) => {
    // The stored text is what the server issued: equal text means equal domain, URI, nonce, address and times.
    const stored = await consumeChallenge(tx, { nonce: challenge.nonce, address: input.address, message: input.message });
    if (!stored) throw unauthorized("This sign-in challenge is unknown, expired or already used");
    const session = { tokenHash: hashToken(token), address: input.address, expiresAt: new Date(now().getTime() + ttlMs) };
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

/** The signed-in address, or null. */
export async function sessionAddress(request: Request, context: AppLoadContext): Promise<string | null> {
  const token = sessionToken(request, context);
  if (!token) return null;
  const session = await findSession(context.sql, hashToken(token));
  return session?.address ?? null;
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

/**
 * 401 without a session, 403 when the session is not the admin's (ADMIN_ADDRESS changed since). A
 * state-changing request must first pass the cross-site check (403 foreign origin, 415 wrong body type),
 * before anything is read or changed. Answers the audit actor.
 */
export async function requireAdmin(request: Request, context: AppLoadContext, body: BodyKind = "json"): Promise<WebActor> {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD") requireSameSiteRequest(request, context, body);
  const address = await sessionAddress(request, context);
  if (!address) throw unauthorized("Sign in as the admin first");
  if (address !== context.config.adminAddress) throw forbidden("Only the admin may do this");
  return { kind: "web", address };
}
