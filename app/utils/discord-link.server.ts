/**
 * Linking a wallet to a Discord account (issue 25, item 2): the OAuth2 round trip (a single-use state bound
 * to the address), the link token the callback hands to /discord/linked, the wallet's signature that makes
 * the link, and the signed unlink. Signatures follow staking's rules: the message checked before anything is
 * looked up, 10 minutes either side of server time, each signature used once (used_signatures).
 */
import { createHash, randomBytes } from "node:crypto";
import type { AppLoadContext } from "react-router";
import { now } from "../domain/clock.ts";
import { DISCORD_LINK_TTL_MS, linkMessage, parseUnlinkMessage, type LinkFailure } from "../domain/discord.ts";
import { notFound, Refusal, unauthorized } from "../domain/errors.ts";
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

/** GET /discord/link?address=: the authorize URL, with a fresh state bound to the address. */
export async function startLink(request: Request, context: AppLoadContext, address: string): Promise<string> {
  const config = discordConfigOr404(context);
  const state = randomBytes(24).toString("base64url");
  const createdAt = now();
  await insertOAuthState(context.sql, {
    stateHash: hash(state),
    address,
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
  return url.toString();
}

/** GET /discord/callback: answers where to send the browser next. */
export async function finishAuthorization(request: Request, context: AppLoadContext): Promise<string> {
  const config = discordConfigOr404(context);
  const query = new URL(request.url).searchParams;
  const fail = (reason: LinkFailure) => `/discord/linked?error=${reason}`;
  const state = query.get("state");
  if (!state || state.length > 200) return fail("invalid");
  const at = now();
  const use = await consumeOAuthState(context.sql, hash(state), at);
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
    discordUserId: user.id,
    username,
    message: linkMessage(username, user.id, use.address, at),
    createdAt: at,
    expiresAt: new Date(at.getTime() + DISCORD_LINK_TTL_MS),
  });
  return `/discord/linked?token=${encodeURIComponent(token)}`;
}

/** A link token's pending link: 404 unknown, 410 expired or used. */
export async function pendingLink(context: AppLoadContext, linkToken: string) {
  discordConfigOr404(context);
  const pending = await findPendingLink(context.sql, hash(linkToken));
  if (!pending) throw notFound("Unknown link token: start again from the staking page");
  if (pending.usedAt) throw new Refusal(410, "This link token was already used: start again from the staking page");
  if (pending.expiresAt.getTime() < now().getTime())
    throw new Refusal(410, "This link token has expired: start again from the staking page");
  return { address: pending.address, discordUserId: pending.discordUserId, username: pending.username, message: pending.message };
}

/** POST /api/discord/link: the wallet's signature of the pending link's message makes the link. */
export async function completeLink(context: AppLoadContext, linkToken: string, signature: string) {
  const pending = await pendingLink(context, linkToken);
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

/** GET /api/discord/link/{address}: linked or not, the username, and the rules' roles the member holds now. */
export async function linkStatus(context: AppLoadContext, address: string) {
  const config = discordConfigOr404(context);
  const link = await findLinkByAddress(context.sql, address);
  if (!link) return { linked: false };
  const [granted, rules] = await Promise.all([grantsOf(context.sql, link.discordUserId), listRules(context.sql)]);
  const ruled = new Set(rules.map((rule) => rule.roleId));
  const roleIds = granted.filter((id) => ruled.has(id));
  const names = roleIds.length ? await roleNames(config) : new Map<string, string>();
  return {
    linked: true,
    username: link.username,
    inGuild: link.absentSince === null,
    roles: roleIds.map((id) => ({ roleId: id, name: names.get(id) ?? id })),
  };
}

const ROLE_NAMES_TTL_MS = 60_000;
const roleNamesCache = new WeakMap<DiscordConfig, { at: number; names: Map<string, string> }>();

/** The guild's role names, read at most once a minute (names are a nicety: ids stand in when Discord cannot be asked). */
async function roleNames(config: DiscordConfig): Promise<Map<string, string>> {
  const cached = roleNamesCache.get(config);
  if (cached && Date.now() - cached.at < ROLE_NAMES_TTL_MS) return cached.names;
  try {
    const names = new Map((await discordClient(config).guildRoles()).map((role) => [role.id, role.name]));
    roleNamesCache.set(config, { at: Date.now(), names });
    return names;
  } catch {
    return cached?.names ?? new Map();
  }
}

/** Used by tests and the bench: the hash under which a state or token is stored. */
export const hashForStorage = hash;
