/**
 * Linking a wallet to a Discord account (issue 25, item 2): the OAuth2 round trip (a single-use state bound
 * to the address), the link token the callback hands to /discord/linked, the wallet's signature that makes
 * the link, and the signed unlink. Signatures follow staking's rules: the message checked before anything is
 * looked up, 10 minutes either side of server time, each signature used once (used_signatures).
 * Issue 32: the state and the link token are bound to the browser that started the link (a short-lived HttpOnly
 * SameSite=Lax cookie, RFC 9700 §4.7), so nobody can start a link for another's wallet and have them sign it
 * (item 7); anyone sees whether a wallet is linked and its roles, only its owner (signed) which account (item 4);
 * the roles' names are read from Discord at most once a minute per process, failures included, one call at a
 * time, and never while the role sync is stopped (item 5).
 */
import { createHash, randomBytes } from "node:crypto";
import type { AppLoadContext } from "react-router";
import { now } from "../domain/clock.ts";
import {
  DISCORD_LINK_TTL_MS,
  linkMessage,
  OTHER_BROWSER,
  parseDiscordAccountMessage,
  parseUnlinkMessage,
  type LinkFailure,
} from "../domain/discord.ts";
import { forbidden, notFound, Refusal, unauthorized } from "../domain/errors.ts";
import { verifySignedMessage } from "../domain/signature.ts";
import { isFreshTimestamp } from "../domain/messages.ts";
import { SYSTEM_ACTOR, recordAudit } from "../../db/queries/audit.server.ts";
import {
  consumeOAuthState,
  deleteLink,
  findLinkByAddress,
  findPendingLink,
  grantsOf,
  insertOAuthState,
  insertPendingLink,
  listProblems,
  listRules,
  markPendingLinkUsed,
  upsertLink,
} from "../../db/queries/discord.server.ts";
import { inTransaction } from "../../db/queries/transaction.server.ts";
import { consumeSignature, verifySignedAction, type SignedInput } from "./auth.server.ts";
import { siteOf } from "./csrf.server.ts";
import { discordClient, isDiscordError } from "./discord.server.ts";
import type { DiscordConfig } from "./env.server.ts";

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** The feature's configuration, or 404 (the feature is off: nothing of it exists). */
export function discordConfigOr404(context: AppLoadContext): DiscordConfig {
  if (!context.config.discord) throw notFound("Not found");
  return context.config.discord;
}

export function redirectUriOf(request: Request, context: AppLoadContext): string {
  return `${siteOf(request, context).origin}/discord/callback`;
}

/** The link's browser cookie over http (development) and over https, where `__Host-` pins it to this host. */
export const LINK_COOKIE = "spooks_discord_link";
export const SECURE_LINK_COOKIE = "__Host-spooks_discord_link";
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

function linkCookieName(request: Request, context: AppLoadContext): string {
  return siteOf(request, context).protocol === "https:" ? SECURE_LINK_COOKIE : LINK_COOKIE;
}

/** This browser's link cookie, when it sent a well-formed one. */
function linkCookie(request: Request, context: AppLoadContext): string | null {
  const wanted = linkCookieName(request, context);
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    const value = rest.join("=");
    if (name === wanted && COOKIE_VALUE.test(value)) return value;
  }
  return null;
}

/** The SHA-256 of this browser's link cookie (null without one): what a state and a link token are bound to. */
const browserOf = (request: Request, context: AppLoadContext) => {
  const cookie = linkCookie(request, context);
  return cookie === null ? null : hash(cookie);
};

/**
 * GET /discord/link?address=: the authorize URL, with a fresh state bound to the address and to this browser,
 * and the browser's cookie (its own again if it has one, so two tabs can link at once; 10 minutes from now).
 */
export async function startLink(request: Request, context: AppLoadContext, address: string): Promise<{ url: string; setCookie: string }> {
  const config = discordConfigOr404(context);
  const cookie = linkCookie(request, context) ?? randomBytes(32).toString("base64url");
  const state = randomBytes(24).toString("base64url");
  const createdAt = now();
  await insertOAuthState(context.sql, {
    stateHash: hash(state),
    address,
    browserSha256: hash(cookie),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + DISCORD_LINK_TTL_MS),
  });
  const url = new URL(config.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: config.clientId,
    scope: "identify",
    state,
    redirect_uri: redirectUriOf(request, context),
    prompt: "consent",
  }).toString();
  const name = linkCookieName(request, context);
  const secure = name === SECURE_LINK_COOKIE ? "; Secure" : "";
  const setCookie = `${name}=${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${DISCORD_LINK_TTL_MS / 1000}${secure}`;
  return { url: url.toString(), setCookie };
}

/** GET /discord/callback: answers where to send the browser next. */
export async function finishAuthorization(request: Request, context: AppLoadContext): Promise<string> {
  const config = discordConfigOr404(context);
  const query = new URL(request.url).searchParams;
  const fail = (reason: LinkFailure) => `/discord/linked?error=${reason}`;
  const state = query.get("state");
  if (!state || state.length > 200) return fail("invalid");
  const at = now();
  const browser = browserOf(request, context);
  const use = await consumeOAuthState(context.sql, hash(state), browser, at);
  if (use.kind !== "ok") return fail(use.kind === "unknown" ? "invalid" : use.kind);
  if (query.get("error")) return fail("denied");
  const code = query.get("code");
  if (!code || code.length > 200) return fail("invalid");
  let user;
  try {
    user = await discordClient(config).userOfCode(code, redirectUriOf(request, context));
  } catch (error) {
    if (isDiscordError(error, 400)) return fail("code");
    context.logger.warn({ msg: "discord: the authorization could not be finished", err: error });
    return fail("discord");
  }
  const token = randomBytes(24).toString("base64url");
  const username = user.username.slice(0, 100);
  await insertPendingLink(context.sql, {
    tokenHash: hash(token),
    address: use.address,
    browserSha256: browser!,
    discordUserId: user.id,
    username,
    message: linkMessage(username, user.id, use.address, at),
    createdAt: at,
    expiresAt: new Date(at.getTime() + DISCORD_LINK_TTL_MS),
  });
  return `/discord/linked?token=${encodeURIComponent(token)}`;
}

/**
 * A link token's pending link, for the browser that started it: 404 unknown, 403 another browser (without its
 * cookie: nothing of the link is shown, not even the Discord account), 410 expired or used.
 */
export async function pendingLink(request: Request, context: AppLoadContext, linkToken: string) {
  discordConfigOr404(context);
  const pending = await findPendingLink(context.sql, hash(linkToken));
  if (!pending) throw notFound("Unknown link token: start again from the staking page");
  const browser = browserOf(request, context);
  if (pending.browserSha256 === null || pending.browserSha256 !== browser) throw forbidden(OTHER_BROWSER);
  if (pending.usedAt) throw new Refusal(410, "This link token was already used: start again from the staking page");
  if (pending.expiresAt.getTime() < now().getTime())
    throw new Refusal(410, "This link token has expired: start again from the staking page");
  return { address: pending.address, discordUserId: pending.discordUserId, username: pending.username, message: pending.message };
}

/** POST /api/discord/link: the wallet's signature of the pending link's message, from the browser that started it, makes the link. */
export async function completeLink(request: Request, context: AppLoadContext, linkToken: string, signature: string) {
  const pending = await pendingLink(request, context, linkToken);
  verifySignedMessage(pending.message, pending.address, signature);
  // The message's timestamp is the callback's: the token's own 10 minutes are the same window as staking's.
  const timestamp = new Date(/Timestamp: (\S+)$/.exec(pending.message)?.[1] ?? 0);
  if (!isFreshTimestamp(timestamp, now())) {
    throw unauthorized("The signed message has expired: its timestamp is more than 10 minutes from server time");
  }
  const at = now();
  await inTransaction(context.sql, async (tx) => {
    const locked = await findPendingLink(tx, hash(linkToken), true);
    if (!locked || locked.usedAt) throw new Refusal(410, "This link token was already used: start again from the staking page");
    await consumeSignature(tx, { address: pending.address, message: pending.message, signature, action: "discord-link" });
    await markPendingLinkUsed(tx, hash(linkToken), at);
    const replaced = await upsertLink(tx, {
      address: pending.address,
      discordUserId: pending.discordUserId,
      username: pending.username,
      at,
    });
    await recordAudit(
      tx,
      SYSTEM_ACTOR,
      "discord.link",
      pending.address,
      { signedBy: pending.address, discordUserId: pending.discordUserId, username: pending.username, ...replaced },
      {
        before: replaced.formerUserOfAddress ? { discordUserId: replaced.formerUserOfAddress } : null,
        after: { discordUserId: pending.discordUserId },
      },
    );
  });
  return { address: pending.address, discordUserId: pending.discordUserId, username: pending.username };
}

/** DELETE /api/discord/link: the signed unlink. */
export async function unlink(context: AppLoadContext, input: SignedInput) {
  discordConfigOr404(context);
  const parsed = verifySignedAction(input, parseUnlinkMessage, "Discord unlink");
  if (parsed.address !== input.address) throw unauthorized(`The signed message unlinks ${parsed.address}, not ${input.address}`);
  return inTransaction(context.sql, async (tx) => {
    await consumeSignature(tx, { ...input, action: "discord-unlink" });
    const removed = await deleteLink(tx, input.address);
    if (!removed) throw notFound("This wallet is not linked to a Discord account");
    await recordAudit(
      tx,
      SYSTEM_ACTOR,
      "discord.unlink",
      input.address,
      { signedBy: input.address, discordUserId: removed.discordUserId, username: removed.username },
      { before: { discordUserId: removed.discordUserId }, after: null },
    );
    return { address: input.address, unlinked: true as const };
  });
}

/** The rules' roles the linked member holds now, with their names (ids when Discord cannot or may not be asked). */
async function heldRoles(context: AppLoadContext, config: DiscordConfig, discordUserId: string) {
  const [granted, rules] = await Promise.all([grantsOf(context.sql, discordUserId), listRules(context.sql)]);
  const ruled = new Set(rules.map((rule) => rule.roleId));
  const roleIds = granted.filter((id) => ruled.has(id));
  const names = roleIds.length ? await roleNames(context, config) : new Map<string, string>();
  return roleIds.map((id) => ({ roleId: id, name: names.get(id) ?? id }));
}

/** GET /api/discord/link/{address}: public, so linked or not and the roles held, never which account. */
export async function linkStatus(context: AppLoadContext, address: string) {
  const config = discordConfigOr404(context);
  const link = await findLinkByAddress(context.sql, address);
  if (!link) return { linked: false };
  return { linked: true, roles: await heldRoles(context, config, link.discordUserId) };
}

/** POST /api/discord/account: the wallet's own signature shows its owner the account linked, and whether it is in the server. */
export async function linkedAccount(context: AppLoadContext, input: SignedInput) {
  const config = discordConfigOr404(context);
  const parsed = verifySignedAction(input, parseDiscordAccountMessage, "Discord account");
  if (parsed.address !== input.address) throw unauthorized(`The signed message names ${parsed.address}, not ${input.address}`);
  await inTransaction(context.sql, (tx) => consumeSignature(tx, { ...input, action: "discord-account" }));
  const link = await findLinkByAddress(context.sql, input.address);
  if (!link) return { linked: false };
  return {
    linked: true,
    username: link.username,
    inGuild: link.absentSince === null,
    roles: await heldRoles(context, config, link.discordUserId),
  };
}

const ROLE_NAMES_TTL_MS = 60_000;
type RoleNamesEntry = { at: number; names: Map<string, string>; pending?: Promise<Map<string, string>> };
const roleNamesCache = new WeakMap<DiscordConfig, RoleNamesEntry>();

/**
 * The guild's role names, asked of Discord at most once a minute per process whatever the answer (a failure is
 * remembered as long as an answer: anonymous reads must not multiply bot-token calls while Discord fails), one
 * call at a time (concurrent reads share it), and never while the role sync is stopped (Discord refused the bot
 * token: every call would be one more refused request). Names are a nicety: ids stand in meanwhile.
 */
async function roleNames(context: AppLoadContext, config: DiscordConfig): Promise<Map<string, string>> {
  const cached = roleNamesCache.get(config);
  if (cached?.pending) return cached.pending;
  if (cached && Date.now() - cached.at < ROLE_NAMES_TTL_MS) return cached.names;
  const previous = cached?.names ?? new Map<string, string>();
  const lookup = (async () => {
    const stopped = (await listProblems(context.sql)).some((problem) => problem.kind === "bad-token");
    if (stopped) return previous;
    try {
      return new Map((await discordClient(config).guildRoles()).map((role) => [role.id, role.name]));
    } catch {
      return previous;
    }
  })();
  roleNamesCache.set(config, { at: cached?.at ?? 0, names: previous, pending: lookup });
  try {
    const names = await lookup;
    roleNamesCache.set(config, { at: Date.now(), names });
    return names;
  } catch (error) {
    // The database did not answer (the problems' read): nothing learned, the next read asks again.
    roleNamesCache.set(config, { at: cached?.at ?? 0, names: previous });
    throw error;
  }
}

/** Used by tests and the bench: the hash under which a state or token is stored. */
export const hashForStorage = hash;
