/**
 * Who is acting. Holders prove an action by signing its exact message (checked here, recorded as used in
 * the action's own transaction); the admin signs a one-time challenge and then holds a session cookie.
 * Nothing in a body (an address, an `adminAddress`) is trusted without that proof.
 */
import { createHash, randomBytes } from "node:crypto";
import type { AppLoadContext } from "react-router";
import { now } from "../domain/clock.ts";
import { forbidden, unauthorized } from "../domain/errors.ts";
import { isFreshTimestamp, parseSignInMessage, SIGN_IN_STATEMENT, signInMessage } from "../domain/messages.ts";
import { verifySignedMessage } from "../domain/signature.ts";
import type { Queryable } from "../../db/client.server.ts";
import type { Actor } from "../../db/queries/audit.server.ts";
import {
  consumeChallenge,
  findSession,
  insertChallenge,
  insertSession,
  recordUsedSignature,
  revokeSession,
} from "../../db/queries/auth.server.ts";

export const CHALLENGE_TTL_MS = 10 * 60 * 1000;
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_COOKIE = "spooks_session";

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

function siteOf(request: Request, context: AppLoadContext): URL {
  return new URL(context.config.publicUrl ?? request.url);
}

export async function createChallenge(
  request: Request,
  context: AppLoadContext,
  address: string,
): Promise<{ message: string; expiresAt: Date }> {
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
  return { message, expiresAt };
}

function cookieHeader(request: Request, context: AppLoadContext, value: string, maxAgeSeconds: number): string {
  const secure = siteOf(request, context).protocol === "https:" ? "; Secure" : "";
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** Verifies a signed challenge (single use, unexpired) and opens a session; answers its Set-Cookie. */
export async function signIn(
  request: Request,
  context: AppLoadContext,
  input: SignedInput,
): Promise<{ address: string; isAdmin: boolean; setCookie: string }> {
  const challenge = parseSignInMessage(input.message);
  if (!challenge || challenge.address !== input.address) throw unauthorized("The signed message is not this address's sign-in challenge");
  verifySignedMessage(input.message, input.address, input.signature);
  const stored = await consumeChallenge(context.sql, { nonce: challenge.nonce, address: input.address, message: input.message });
  if (!stored) throw unauthorized("This sign-in challenge is unknown, expired or already used");
  const token = randomBytes(32).toString("base64url");
  await insertSession(context.sql, {
    tokenHash: hashToken(token),
    address: input.address,
    expiresAt: new Date(now().getTime() + SESSION_TTL_MS),
  });
  return {
    address: input.address,
    isAdmin: input.address === context.config.adminAddress,
    setCookie: cookieHeader(request, context, token, SESSION_TTL_MS / 1000),
  };
}

function sessionToken(request: Request): string | null {
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === SESSION_COOKIE) return rest.join("=") || null;
  }
  return null;
}

/** The signed-in address, or null. */
export async function sessionAddress(request: Request, context: AppLoadContext): Promise<string | null> {
  const token = sessionToken(request);
  if (!token) return null;
  const session = await findSession(context.sql, hashToken(token));
  return session?.address ?? null;
}

/** Ends the session (if any); answers the Set-Cookie that clears the cookie. */
export async function signOut(request: Request, context: AppLoadContext): Promise<string> {
  const token = sessionToken(request);
  if (token) await revokeSession(context.sql, hashToken(token));
  return cookieHeader(request, context, "", 0);
}

/** 401 without a session, 403 when the session is not the admin's. Answers the audit actor. */
export async function requireAdmin(request: Request, context: AppLoadContext): Promise<WebActor> {
  const address = await sessionAddress(request, context);
  if (!address) throw unauthorized("Sign in as the admin first");
  if (address !== context.config.adminAddress) throw forbidden("Only the admin may do this");
  return { kind: "web", address };
}
