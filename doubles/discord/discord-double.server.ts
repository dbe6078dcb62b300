/**
 * A local Discord for tests and demo mode: real HTTP on 127.0.0.1 answering as ../../../shared/spec/REAL-WORLD.md
 * "Discord" says (REST API v10, OAuth2, channel webhooks), so the product's real client (@discordjs/rest, fetch)
 * is what gets exercised. Nothing here is product code; see ./README.md for what it serves and what it does not.
 *
 * Routes, under `/api/v10` and `/api` alike (@discordjs/rest builds `${api}/v10${route}`; webhook URLs are
 * `/api/webhooks/...`): POST /oauth2/token, POST /oauth2/token/revoke, GET /users/@me, GET /guilds/{guild}/roles,
 * GET /guilds/{guild}/members/{user}, GET /guilds/{guild}/members, PUT and DELETE
 * /guilds/{guild}/members/{user}/roles/{role}, POST /webhooks/{id}/{token}. The authorize page is
 * GET /oauth2/authorize (also under /api and /api/v10): it redirects at once for the user a test logged in.
 *
 * Control routes (loopback callers only, for browser tests; JSON bodies, 400 {message} on bad input):
 * POST /control/guild, /control/user, /control/member, /control/member/remove, /control/app, /control/login,
 * /control/logout, /control/deny, /control/webhook, /control/webhook/delete, /control/fail, /control/reset-stats;
 * GET /control/messages, /control/role-changes, /control/stats.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { checkWebhookMessage, mentionsOf, type Mentions } from "./message-limits.ts";
import {
  BUCKETS,
  createRateLimiter,
  refusalBody,
  refusalHeaders,
  type Bucket,
  type BucketLimit,
  type RateLimitScope,
  type Refusal,
} from "./rate-limits.ts";
import {
  createSnowflakes,
  discordTimestamp,
  ERRORS,
  formError,
  memberJson,
  PERMISSIONS,
  randomToken,
  roleJson,
  userJson,
  type ApiError,
  type MemberRecord,
  type RoleRecord,
  type UserRecord,
} from "./shapes.ts";

export const ROUTES = [
  "POST /oauth2/token",
  "POST /oauth2/token/revoke",
  "GET /users/@me",
  "GET /guilds/{guild}/roles",
  "GET /guilds/{guild}/members/{user}",
  "GET /guilds/{guild}/members",
  "PUT /guilds/{guild}/members/{user}/roles/{role}",
  "DELETE /guilds/{guild}/members/{user}/roles/{role}",
  "POST /webhooks/{webhook}/{token}",
] as const;
export type DiscordRoute = (typeof ROUTES)[number];

const BUCKET_OF: Record<DiscordRoute, Bucket> = {
  "POST /oauth2/token": "oauth2-token",
  "POST /oauth2/token/revoke": "oauth2-revoke",
  "GET /users/@me": "users-me",
  "GET /guilds/{guild}/roles": "guild-roles",
  "GET /guilds/{guild}/members/{user}": "guild-member",
  "GET /guilds/{guild}/members": "guild-members",
  // Adding and removing a member's role share one bucket, as on Discord: one X-RateLimit-Bucket for both.
  "PUT /guilds/{guild}/members/{user}/roles/{role}": "member-roles",
  "DELETE /guilds/{guild}/members/{user}/roles/{role}": "member-roles",
  "POST /webhooks/{webhook}/{token}": "webhook",
};

/** Authorization codes live 100 s on Discord (its staff, discord-api-docs#1768); access tokens 7 days. */
const CODE_LIFETIME_MS = 100_000;
const ACCESS_TOKEN_LIFETIME_S = 604_800;
const DENIED_DESCRIPTION = "The resource owner or authorization server denied the request";
const MAX_BODY = 1024 * 1024;
const MAX_CONTROL_BODY = 16 * 1024 * 1024;

export type RoleSpec = { id?: string; name: string; position: number; managed?: boolean; permissions?: bigint | string };
export type GuildSpec = {
  id?: string;
  name?: string;
  /** Roles besides @everyone (which the double adds: id = the guild's id, position 0). Positions must differ. */
  roles?: RoleSpec[];
  /** The bot's own managed role (named after it, created when it joined), at `position`; MANAGE_ROLES unless `permissions`. */
  botRole?: { position: number; permissions?: bigint | string };
  /** Further roles (ids or names of `roles`) the bot holds. */
  botExtraRoles?: string[];
  /** The app's privileged GUILD_MEMBERS intent; without it GET /guilds/{guild}/members is 403 50001. Default true. */
  membersIntent?: boolean;
};
export type GuildView = {
  id: string;
  name: string;
  botRoleId: string | null;
  roles: { id: string; name: string; position: number; managed: boolean }[];
};

export type RoleChange = {
  guildId: string;
  userId: string;
  roleId: string;
  action: "add" | "remove";
  /** The X-Audit-Log-Reason, decoded; null without one. */
  reason: string | null;
  /** Whether the member's roles changed (adding a role held already is a 204 that changes nothing). */
  changed: boolean;
  at: number;
};

export type PostedMessage = {
  webhookId: string;
  /** The message as Discord stores it (what `?wait=true` answers). */
  message: Record<string, unknown>;
  /** The JSON body as sent. */
  body: Record<string, unknown>;
  /** `allowed_mentions` as sent (undefined when absent: then every mention in the content pings). */
  allowedMentions: unknown;
  /** Whom it would have pinged. */
  mentions: Mentions;
  wait: boolean;
  at: number;
};

export type Webhook = { id: string; token: string; channelId: string; name: string; url: string };

export type ForcedAnswer = {
  status: 429 | 500 | 502 | 503 | 504;
  times?: number;
  /** For a 429: seconds (fractional) in `retry_after`; Retry-After is this rounded up. Default 1. */
  retryAfter?: number;
  /** For a 429: default "user". "global" adds X-RateLimit-Global: true. */
  scope?: RateLimitScope;
};

export type RequestRecord = { method: string; path: string; route: DiscordRoute | null; status: number; at: number };
export type DoubleStats = {
  requests: number;
  byRoute: Partial<Record<DiscordRoute, number>>;
  byStatus: Record<number, number>;
  /** Discord's "invalid requests": 401, 403, and 429 other than scope `shared` (10,000 in 10 minutes bring a ban). */
  invalidRequests: number;
  rateLimited: number;
  /** "METHOD /path" → how many times that request was answered 429 (a well-behaved client: at most 1). */
  refusals: Record<string, number>;
  /** Calls to a webhook after it was deleted (Discord bans addresses that keep calling one). */
  deletedWebhookCalls: number;
};

export type DiscordDoubleOptions = {
  port?: number;
  host?: string;
  /** The bot's token (`Authorization: Bot <token>`); default a random one, read it from `botToken`. */
  botToken?: string;
  botUsername?: string;
  /** Per-bucket windows (small ones make rate-limit tests fast); see rate-limits.ts for the defaults. */
  rateLimits?: Partial<Record<Bucket, BucketLimit>>;
  /** Requests a second per token before a global 429; default 50 (Discord's, per bot). */
  globalPerSecond?: number;
};

export type DiscordDouble = {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** What @discordjs/rest takes as `api` (it adds `/v10`): `${url}/api`. */
  apiUrl: string;
  /** The authorize page (DISCORD_AUTHORIZE_URL): `${url}/oauth2/authorize`. */
  authorizeUrl: string;
  botToken: string;
  botUserId: string;

  createGuild(spec?: GuildSpec): GuildView;
  /** The bot leaves (or is removed from) the guild: its routes answer 404 10004 from then on. */
  removeBotFromGuild(guildId: string): void;
  setMembersIntent(guildId: string, enabled: boolean): void;
  createUser(spec?: { id?: string; username?: string; globalName?: string | null; avatar?: string | null }): UserRecord;
  addMember(guildId: string, userId: string, options?: { roles?: string[]; nick?: string | null }): void;
  removeMember(guildId: string, userId: string): void;
  /** The member's role ids now (undefined: not a member). */
  memberRoles(guildId: string, userId: string): string[] | undefined;
  /** Sets a member's roles directly (a moderator's change in Discord's own client). */
  setMemberRoles(guildId: string, userId: string, roleIds: string[]): void;
  /** Invalidates the bot's token (as resetting it in the developer portal does): every bot call is 401. */
  resetBotToken(): string;

  registerApp(spec: { clientId?: string; clientSecret?: string; redirectUris: string[] }): { clientId: string; clientSecret: string };
  /** The user the authorize page approves for (null: nobody logged in, the page asks). */
  logIn(userId: string | null): void;
  /** The next `times` authorizations are denied (redirect with error=access_denied). */
  denyAuthorizations(times?: number): void;
  /** Every authorization code issued so far expires now. */
  expireCodes(): void;
  /** Every access token issued so far expires now. */
  expireAccessTokens(): void;

  createWebhook(spec?: { channelId?: string; name?: string }): Webhook;
  deleteWebhook(webhookId: string): void;
  messages(webhookId?: string): PostedMessage[];
  roleChanges(): RoleChange[];

  /** The next answers of `route` are forced (a 429 of a scope, or a 5xx), before any other check. */
  failNext(route: DiscordRoute, answer: ForcedAnswer): void;
  setRateLimit(bucket: Bucket, limit: BucketLimit): void;
  setGlobalPerSecond(perSecond: number): void;
  stats(): DoubleStats;
  /** Every request answered, in order (at most the last 100,000). */
  requests(): RequestRecord[];
  /** Zeroes the counters, forgets the request log and starts every rate-limit window afresh. */
  resetStats(): void;
  /** Forgets the posted messages and the role changes. */
  clearRecords(): void;
  close(): Promise<void>;
};

type GuildRecord = {
  id: string;
  name: string;
  roles: Map<string, RoleRecord>;
  members: Map<string, MemberRecord>;
  botPresent: boolean;
  membersIntent: boolean;
  botRoleId: string | null;
};
type AppRecord = { clientId: string; clientSecret: string; redirectUris: string[] };
type CodeRecord = { clientId: string; userId: string; redirectUri: string; scope: string; expiresAt: number; used: boolean };
type GrantRecord = {
  clientId: string;
  userId: string;
  scope: string;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  revoked: boolean;
};
type Forced = ForcedAnswer & { remaining: number; route: DiscordRoute };
type Answer = { status: number; body?: unknown; headers?: Record<string, string>; contentType?: string };
type Matched = { route: DiscordRoute; params: Record<string, string> };

const isLoopback = (address: string | undefined) => address !== undefined && (address === "::1" || /^(::ffff:)?127\./.test(address));
const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({ status, body, headers });
const apiError = (status: number, error: ApiError) => json(status, error);
const oauthError = (status: number, error: string, description?: string) =>
  json(status, description === undefined ? { error } : { error, error_description: description });

/** Matches `/guilds/123/roles` against the route templates; a known path with another method is a 405. */
function matchRoute(method: string, path: string): Matched | "method-not-allowed" | undefined {
  const segments = path.split("/").slice(1);
  let pathKnown = false;
  for (const route of ROUTES) {
    const [routeMethod, template] = route.split(" ");
    const parts = template.split("/").slice(1);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = parts.every((part, i) => {
      if (part.startsWith("{")) {
        params[part.slice(1, -1)] = decodeSegment(segments[i]);
        return segments[i] !== "";
      }
      return part === segments[i];
    });
    if (!fits) continue;
    if (routeMethod === method) return { route, params };
    pathKnown = true;
  }
  return pathKnown ? "method-not-allowed" : undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > limit ? "too-large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** `Basic base64(client_id:client_secret)` → its two parts (RFC 6749 §2.3.1: each form-urlencoded first). */
function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const part = (text: string) => decodeSegment(text.replaceAll("+", " "));
  return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) };
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const toPermissions = (value: bigint | string | undefined, fallback: bigint) => (value === undefined ? fallback : BigInt(value));

export async function startDiscordDouble(options: DiscordDoubleOptions = {}): Promise<DiscordDouble> {
  const nextId = createSnowflakes();
  const limiter = createRateLimiter({ limits: options.rateLimits, globalPerSecond: options.globalPerSecond });
  let botToken = options.botToken ?? `${Buffer.from(nextId()).toString("base64url")}.${randomToken(6)}.${randomToken(38)}`;
  const botUser: UserRecord = { id: nextId(), username: options.botUsername ?? "Spooks Bot", globalName: null, avatar: null, bot: true };

  const users = new Map<string, UserRecord>([[botUser.id, botUser]]);
  const guilds = new Map<string, GuildRecord>();
  const apps = new Map<string, AppRecord>();
  const codes = new Map<string, CodeRecord>();
  const grants: GrantRecord[] = [];
  const webhooks = new Map<string, Webhook & { deleted: boolean }>();
  let loggedIn: string | null = null;
  let denials = 0;
  let forced: Forced[] = [];
  let posted: PostedMessage[] = [];
  let changes: RoleChange[] = [];
  let log: RequestRecord[] = [];
  const emptyStats = (): DoubleStats => ({
    requests: 0,
    byRoute: {},
    byStatus: {},
    invalidRequests: 0,
    rateLimited: 0,
    refusals: {},
    deletedWebhookCalls: 0,
  });
  let stats = emptyStats();

  // ---- state helpers ------------------------------------------------------------------------------------

  const guildOrThrow = (guildId: string) => {
    const guild = guilds.get(guildId);
    if (!guild) throw new Error(`no guild ${guildId}`);
    return guild;
  };
  const userOrThrow = (userId: string) => {
    const user = users.get(userId);
    if (!user) throw new Error(`no user ${userId}`);
    return user;
  };
  const roleIdOf = (guild: GuildRecord, idOrName: string) => {
    const role = guild.roles.get(idOrName) ?? [...guild.roles.values()].find((r) => r.name === idOrName);
    if (!role) throw new Error(`no role ${idOrName} in guild ${guild.id}`);
    return role.id;
  };
  const guildView = (guild: GuildRecord): GuildView => ({
    id: guild.id,
    name: guild.name,
    botRoleId: guild.botRoleId,
    roles: [...guild.roles.values()].map(({ id, name, position, managed }) => ({ id, name, position, managed })),
  });

  /** The bot's permissions in the guild (its roles' and @everyone's) and the position of its highest role. */
  function botStanding(guild: GuildRecord): { permissions: bigint; highest: number } {
    const member = guild.members.get(botUser.id);
    const held = [guild.id, ...(member?.roles ?? [])].map((id) => guild.roles.get(id)).filter((r): r is RoleRecord => r !== undefined);
    return {
      permissions: held.reduce((all, role) => all | role.permissions, 0n),
      highest: Math.max(...held.map((role) => role.position)),
    };
  }

  function grantOfAccessToken(token: string): GrantRecord | undefined {
    return grants.find((g) => g.accessToken === token && !g.revoked && g.accessExpiresAt > Date.now());
  }

  // ---- authentication ------------------------------------------------------------------------------------

  type Caller = { kind: "bot" } | { kind: "bearer"; grant: GrantRecord };
  function callerOf(req: http.IncomingMessage): Caller | undefined {
    const header = req.headers.authorization ?? "";
    if (header === `Bot ${botToken}`) return { kind: "bot" };
    const bearer = /^Bearer (\S+)$/.exec(header);
    const grant = bearer ? grantOfAccessToken(bearer[1]) : undefined;
    return grant ? { kind: "bearer", grant } : undefined;
  }

  function clientOf(req: http.IncomingMessage, form: URLSearchParams): AppRecord | undefined {
    const basic = basicCredentials(req.headers.authorization);
    const clientId = basic?.clientId ?? form.get("client_id");
    const clientSecret = basic?.clientSecret ?? form.get("client_secret");
    if (basic && form.has("client_id") && form.get("client_id") !== basic.clientId) return undefined;
    const app = clientId ? apps.get(clientId) : undefined;
    return app && app.clientSecret === clientSecret ? app : undefined;
  }

  // ---- OAuth2 ---------------------------------------------------------------------------------------------

  function issueGrant(clientId: string, userId: string, scope: string) {
    const grant: GrantRecord = {
      clientId,
      userId,
      scope,
      accessToken: randomToken(),
      accessExpiresAt: Date.now() + ACCESS_TOKEN_LIFETIME_S * 1000,
      refreshToken: randomToken(),
      revoked: false,
    };
    grants.push(grant);
    return json(200, {
      token_type: "Bearer",
      access_token: grant.accessToken,
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      refresh_token: grant.refreshToken,
      scope: grant.scope,
    });
  }

  /** The form of a token request: application/x-www-form-urlencoded only (a JSON body reads as no fields). */
  const formOf = (req: http.IncomingMessage, body: Buffer) =>
    (req.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
      ? new URLSearchParams(body.toString("utf8"))
      : new URLSearchParams();

  function tokenRoute(req: http.IncomingMessage, body: Buffer): Answer {
    const form = formOf(req, body);
    const grantType = form.get("grant_type");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      return oauthError(400, "unsupported_grant_type", `Grant type ${grantType ?? "None"} is not supported`);
    }
    const app = clientOf(req, form);
    if (!app) return oauthError(401, "invalid_client");
    if (grantType === "refresh_token") {
      const grant = grants.find((g) => g.refreshToken === form.get("refresh_token") && g.clientId === app.clientId && !g.revoked);
      if (!grant) return oauthError(400, "invalid_grant", 'Invalid "refresh_token" in request.');
      grant.revoked = true;
      return issueGrant(app.clientId, grant.userId, grant.scope);
    }
    const code = codes.get(form.get("code") ?? "");
    if (!code || code.used || code.expiresAt <= Date.now() || code.clientId !== app.clientId) {
      return oauthError(400, "invalid_grant", 'Invalid "code" in request.');
    }
    if (form.get("redirect_uri") !== code.redirectUri) return oauthError(400, "invalid_grant", 'Invalid "redirect_uri" in request.');
    code.used = true;
    return issueGrant(app.clientId, code.userId, code.scope);
  }

  function revokeRoute(req: http.IncomingMessage, body: Buffer): Answer {
    const form = formOf(req, body);
    const app = clientOf(req, form);
    if (!app) return oauthError(401, "invalid_client");
    const token = form.get("token");
    if (!token) return oauthError(400, "invalid_request", 'Missing "token" in request.');
    for (const grant of grants) {
      if (grant.clientId === app.clientId && (grant.accessToken === token || grant.refreshToken === token)) grant.revoked = true;
    }
    return json(200, {});
  }

  function authorizePage(title: string, inner: string, status = 200): Answer {
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${inner}</body></html>`;
    return { status, body: html, contentType: "text/html; charset=utf-8" };
  }

  const redirect = (location: string): Answer => ({ status: 302, body: "", headers: { location } });

  /**
   * The authorize page. The query is checked as Discord's page does (an unknown app or a redirect_uri it did not
   * register is an error page, never a redirect); then a denial (when a test asked for one), the logged-in
   * user's approval, or, with nobody logged in, a page to choose a user (demo mode: a newcomer clicks).
   */
  function authorizeRoute(url: URL, decision?: URLSearchParams): Answer {
    const query = url.searchParams;
    const app = apps.get(query.get("client_id") ?? "");
    if (!app) return authorizePage("Unknown Application", "<p>Invalid client_id.</p>", 400);
    const redirectUri = query.get("redirect_uri") ?? "";
    if (!app.redirectUris.includes(redirectUri))
      return authorizePage("Invalid OAuth2 redirect_uri", "<p>Invalid OAuth2 redirect_uri.</p>", 400);
    if (query.get("response_type") !== "code") return authorizePage("Invalid response_type", "<p>Unsupported response_type.</p>", 400);
    const scope = (query.get("scope") ?? "").trim();
    if (scope === "" || !scope.split(/\s+/).every((s) => s === "identify"))
      return authorizePage("Invalid scope", "<p>Invalid scope.</p>", 400);
    const prompt = query.get("prompt");
    if (prompt !== null && prompt !== "consent" && prompt !== "none") return authorizePage("Invalid prompt", "<p>Invalid prompt.</p>", 400);
    const back = new URL(redirectUri);
    const state = query.get("state");
    const deny = decision?.has("deny") || (decision === undefined && denials > 0);
    if (deny) {
      if (decision === undefined) denials -= 1;
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", DENIED_DESCRIPTION);
      if (state !== null) back.searchParams.set("state", state);
      return redirect(back.toString());
    }
    const userId = decision?.get("user_id") ?? loggedIn;
    if (userId === null || !users.has(userId) || users.get(userId)!.bot) return choosePage(url);
    const code = randomToken();
    codes.set(code, { clientId: app.clientId, userId, redirectUri, scope, expiresAt: Date.now() + CODE_LIFETIME_MS, used: false });
    back.searchParams.set("code", code);
    if (state !== null) back.searchParams.set("state", state);
    return redirect(back.toString());
  }

  function choosePage(url: URL): Answer {
    const action = escapeHtml(`${url.pathname}${url.search}`);
    const people = [...users.values()].filter((user) => !user.bot);
    const buttons = people
      .map((user) => `<button name="user_id" value="${user.id}">Authorize as ${escapeHtml(user.username)}</button>`)
      .join("");
    return authorizePage(
      "Authorize access to your account",
      `<form method="post" action="${action}">${buttons}<button name="deny" value="1">Cancel</button></form>`,
    );
  }

  // ---- guild routes ----------------------------------------------------------------------------------------

  function snowflakeParams(params: Record<string, string>): ApiError | undefined {
    for (const [name, value] of Object.entries(params)) {
      if (name === "token") continue;
      if (!/^\d{1,20}$/.test(value)) return formError(`${name}_id`, "NUMBER_TYPE_COERCE", `Value "${value}" is not snowflake.`);
    }
    return undefined;
  }

  const guildFor = (guildId: string) => {
    const guild = guilds.get(guildId);
    return guild?.botPresent ? guild : undefined;
  };

  function rolesRoute(params: Record<string, string>): Answer {
    const guild = guildFor(params.guild);
    if (!guild) return apiError(404, ERRORS.unknownGuild);
    return json(200, [...guild.roles.values()].map(roleJson));
  }

  function memberRoute(params: Record<string, string>): Answer {
    const guild = guildFor(params.guild);
    if (!guild) return apiError(404, ERRORS.unknownGuild);
    const member = guild.members.get(params.user);
    if (!member) return apiError(404, ERRORS.unknownMember);
    return json(200, memberJson(member, users.get(member.userId)!));
  }

  function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number | ApiError {
    const raw = query.get(name);
    if (raw === null) return fallback;
    if (!/^-?\d+$/.test(raw)) return formError(name, "NUMBER_TYPE_COERCE", `Value "${raw}" is not int.`);
    const value = Number(raw);
    if (value < min) return formError(name, "NUMBER_TYPE_MIN", `int value should be greater than or equal to ${min}.`);
    if (value > max) return formError(name, "NUMBER_TYPE_MAX", `int value should be less than or equal to ${max}.`);
    return value;
  }

  function membersRoute(params: Record<string, string>, query: URLSearchParams): Answer {
    const guild = guildFor(params.guild);
    if (!guild) return apiError(404, ERRORS.unknownGuild);
    if (!guild.membersIntent) return apiError(403, ERRORS.missingAccess);
    const limit = intParam(query, "limit", 1, 1, 1000);
    if (typeof limit !== "number") return apiError(400, limit);
    const after = query.get("after") ?? "0";
    if (!/^\d{1,20}$/.test(after)) return apiError(400, formError("after", "NUMBER_TYPE_COERCE", `Value "${after}" is not snowflake.`));
    const afterId = BigInt(after);
    const page = [...guild.members.values()]
      .filter((member) => BigInt(member.userId) > afterId)
      .sort((a, b) => (BigInt(a.userId) < BigInt(b.userId) ? -1 : 1))
      .slice(0, limit);
    return json(
      200,
      page.map((member) => memberJson(member, users.get(member.userId)!)),
    );
  }

  function auditReason(req: http.IncomingMessage): string | null {
    const raw = req.headers["x-audit-log-reason"];
    return typeof raw === "string" ? decodeSegment(raw) : null;
  }

  function memberRoleRoute(req: http.IncomingMessage, action: "add" | "remove", params: Record<string, string>): Answer {
    const guild = guildFor(params.guild);
    if (!guild) return apiError(404, ERRORS.unknownGuild);
    const member = guild.members.get(params.user);
    if (!member) return apiError(404, ERRORS.unknownMember);
    const role = guild.roles.get(params.role);
    // @everyone (id = the guild's id) cannot be given or taken: Discord answers it as an unknown role.
    if (!role || role.id === guild.id) return apiError(404, ERRORS.unknownRole);
    const bot = botStanding(guild);
    const mayManage = (bot.permissions & (PERMISSIONS.manageRoles | PERMISSIONS.administrator)) !== 0n;
    if (!mayManage || role.managed || role.position >= bot.highest) return apiError(403, ERRORS.missingPermissions);
    const had = member.roles.has(role.id);
    if (action === "add") member.roles.add(role.id);
    else member.roles.delete(role.id);
    changes.push({
      guildId: guild.id,
      userId: member.userId,
      roleId: role.id,
      action,
      reason: auditReason(req),
      changed: action === "add" ? !had : had,
      at: Date.now(),
    });
    return { status: 204 };
  }

  // ---- webhooks -------------------------------------------------------------------------------------------

  function waitParam(query: URLSearchParams): boolean | ApiError {
    const raw = query.get("wait");
    if (raw === null) return false;
    if (/^(true|1)$/i.test(raw)) return true;
    if (/^(false|0)$/i.test(raw)) return false;
    return formError("wait", "BOOLEAN_TYPE_COERCE", `Value "${raw}" is not a boolean.`);
  }

  function webhookRoute(req: http.IncomingMessage, params: Record<string, string>, query: URLSearchParams, body: Buffer): Answer {
    const webhook = webhooks.get(params.webhook);
    if (!webhook || webhook.deleted) {
      if (webhook?.deleted) stats.deletedWebhookCalls += 1;
      return apiError(404, ERRORS.unknownWebhook);
    }
    if (webhook.token !== params.token) return apiError(401, ERRORS.invalidWebhookToken);
    const wait = waitParam(query);
    if (typeof wait !== "boolean") return apiError(400, wait);
    let parsed: unknown = {};
    if ((req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
      try {
        parsed = JSON.parse(body.toString("utf8") || "{}");
      } catch {
        return apiError(400, ERRORS.invalidJson);
      }
    }
    const check = checkWebhookMessage(parsed);
    if (!check.ok) return apiError(400, check.body);
    const now = Date.now();
    const mentions = mentionsOf(check.content, check.allowedMentions);
    const message = {
      id: nextId(),
      type: 0,
      content: check.content,
      channel_id: webhook.channelId,
      author: {
        id: webhook.id,
        username: webhook.name,
        avatar: null,
        discriminator: "0000",
        public_flags: 0,
        flags: 0,
        bot: true,
        global_name: null,
      },
      attachments: [],
      embeds: check.embeds.map((embed) => ({ type: "rich", ...embed })),
      mentions: mentions.users.filter((id) => users.has(id)).map((id) => userJson(users.get(id)!)),
      mention_roles: mentions.roles,
      pinned: false,
      mention_everyone: mentions.everyone,
      tts: false,
      timestamp: discordTimestamp(now),
      edited_timestamp: null,
      flags: 0,
      components: [],
      webhook_id: webhook.id,
    };
    posted.push({
      webhookId: webhook.id,
      message,
      body: parsed as Record<string, unknown>,
      allowedMentions: check.allowedMentions,
      mentions,
      wait,
      at: now,
    });
    return wait ? json(200, message) : { status: 204 };
  }

  // ---- the API's answer pipeline --------------------------------------------------------------------------

  function takeForced(route: DiscordRoute): Forced | undefined {
    const entry = forced.find((f) => f.route === route);
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) forced = forced.filter((f) => f !== entry);
    return entry;
  }

  function forcedAnswer(entry: Forced, rateHeaders: Record<string, string>): Answer {
    if (entry.status === 429) {
      const scope = entry.scope ?? "user";
      const refusal: Refusal = { retryAfterS: entry.retryAfter ?? 1, scope, global: scope === "global" };
      return json(429, refusalBody(refusal), { ...rateHeaders, ...refusalHeaders(refusal) });
    }
    if (entry.status === 500) return json(500, ERRORS.internal, rateHeaders);
    // 502-504 come from Discord's edge (Cloudflare), not the API: an HTML page without rate-limit headers.
    const text = { 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" }[entry.status];
    return {
      status: entry.status,
      body: `<html><head><title>${entry.status} ${text}</title></head><body><h1>${text}</h1></body></html>`,
      contentType: "text/html",
    };
  }

  /** Who is counted against the limits: the token (bot or user), the app for token calls, or the webhook. */
  function rateIdentity(req: http.IncomingMessage, matched: Matched, form: () => URLSearchParams) {
    const { route, params } = matched;
    if (route === "POST /webhooks/{webhook}/{token}")
      return { caller: "webhook", major: `${params.webhook}/${params.token}`, global: false };
    if (route.includes("/oauth2/")) {
      const clientId = basicCredentials(req.headers.authorization)?.clientId ?? form().get("client_id") ?? "anonymous";
      return { caller: `client:${clientId}`, major: "global", global: false };
    }
    const caller = req.headers.authorization ?? "anonymous";
    return { caller, major: params.guild ?? "global", global: true };
  }

  function handle(req: http.IncomingMessage, matched: Matched, url: URL, body: Buffer): Answer {
    const { route, params } = matched;
    if (route === "POST /oauth2/token") return tokenRoute(req, body);
    if (route === "POST /oauth2/token/revoke") return revokeRoute(req, body);
    if (route === "POST /webhooks/{webhook}/{token}") return webhookRoute(req, params, url.searchParams, body);
    const caller = callerOf(req);
    if (!caller) return apiError(401, ERRORS.unauthorized);
    if (route === "GET /users/@me") return json(200, userJson(caller.kind === "bot" ? botUser : users.get(caller.grant.userId)!));
    // Guild routes are the bot's: a user's Bearer token without the guild scopes may not read them.
    if (caller.kind !== "bot") return apiError(401, ERRORS.unauthorized);
    const badId = snowflakeParams(params);
    if (badId) return apiError(400, badId);
    switch (route) {
      case "GET /guilds/{guild}/roles":
        return rolesRoute(params);
      case "GET /guilds/{guild}/members/{user}":
        return memberRoute(params);
      case "GET /guilds/{guild}/members":
        return membersRoute(params, url.searchParams);
      case "PUT /guilds/{guild}/members/{user}/roles/{role}":
        return memberRoleRoute(req, "add", params);
      case "DELETE /guilds/{guild}/members/{user}/roles/{role}":
        return memberRoleRoute(req, "remove", params);
    }
  }

  async function apiRequest(req: http.IncomingMessage, res: http.ServerResponse, url: URL, path: string) {
    const method = req.method ?? "GET";
    const matched = matchRoute(method, path);
    if (matched === undefined) return send(req, res, null, path, apiError(404, ERRORS.notFound));
    if (matched === "method-not-allowed") return send(req, res, null, path, apiError(405, ERRORS.methodNotAllowed));
    const body = await readBody(req, MAX_BODY);
    if (body === "too-large") return send(req, res, matched.route, path, apiError(413, ERRORS.tooLarge));
    const bucket = BUCKET_OF[matched.route];
    const { caller, major, global } = rateIdentity(req, matched, () => formOf(req, body));
    const forcedEntry = takeForced(matched.route);
    if (forcedEntry) return send(req, res, matched.route, path, forcedAnswer(forcedEntry, limiter.peek(bucket, caller, major)));
    const check = limiter.take(bucket, caller, major, { global });
    if (check.refusal) {
      return send(
        req,
        res,
        matched.route,
        path,
        json(429, refusalBody(check.refusal), { ...check.headers, ...refusalHeaders(check.refusal) }),
      );
    }
    const answer = handle(req, matched, url, body);
    send(req, res, matched.route, path, { ...answer, headers: { ...check.headers, ...answer.headers } });
  }

  function record(method: string, path: string, route: DiscordRoute | null, answer: Answer) {
    stats.requests += 1;
    if (route) stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
    stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1;
    const scope = answer.headers?.["x-ratelimit-scope"];
    if (answer.status === 401 || answer.status === 403 || (answer.status === 429 && scope !== "shared")) stats.invalidRequests += 1;
    if (answer.status === 429) {
      stats.rateLimited += 1;
      const key = `${method} ${path}`;
      stats.refusals[key] = (stats.refusals[key] ?? 0) + 1;
    }
    log.push({ method, path, route, status: answer.status, at: Date.now() });
    if (log.length > 100_000) log = log.slice(-100_000);
  }

  function send(req: http.IncomingMessage, res: http.ServerResponse, route: DiscordRoute | null, path: string, answer: Answer) {
    if (route !== null || !path.startsWith("/control/")) record(req.method ?? "GET", path, route, answer);
    const headers: Record<string, string> = { ...answer.headers };
    let payload = "";
    if (answer.body !== undefined && answer.status !== 204) {
      payload = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      headers["content-type"] = answer.contentType ?? "application/json";
    }
    headers["content-length"] = String(Buffer.byteLength(payload));
    if (res.destroyed) return;
    res.writeHead(answer.status, headers);
    res.end(payload);
  }

  // ---- control --------------------------------------------------------------------------------------------

  const Id = z.string().regex(/^\d{17,19}$/);
  const Permissions = z.union([z.string().regex(/^\d+$/), z.number().int().min(0)]).transform(String);
  const ControlBodies = {
    guild: z.object({
      id: Id.optional(),
      name: z.string().optional(),
      roles: z
        .array(
          z.object({
            id: Id.optional(),
            name: z.string().min(1),
            position: z.number().int().min(1),
            managed: z.boolean().optional(),
            permissions: Permissions.optional(),
          }),
        )
        .optional(),
      botRole: z.object({ position: z.number().int().min(1), permissions: Permissions.optional() }).optional(),
      botExtraRoles: z.array(z.string()).optional(),
      membersIntent: z.boolean().optional(),
    }),
    user: z.object({
      id: Id.optional(),
      username: z.string().min(1).optional(),
      globalName: z.string().nullable().optional(),
      avatar: z.string().nullable().optional(),
    }),
    member: z.object({ guildId: Id, userId: Id, roles: z.array(z.string()).optional(), nick: z.string().nullable().optional() }),
    "member/remove": z.object({ guildId: Id, userId: Id }),
    app: z.object({
      clientId: z.string().min(1).optional(),
      clientSecret: z.string().min(1).optional(),
      redirectUris: z.array(z.url()).min(1),
    }),
    login: z.object({ userId: Id.nullable() }),
    logout: z.object({}),
    deny: z.object({ times: z.number().int().min(1).max(1000).optional() }),
    webhook: z.object({ channelId: Id.optional(), name: z.string().min(1).max(80).optional() }),
    "webhook/delete": z.object({ id: Id }),
    fail: z.object({
      route: z.enum(ROUTES),
      status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
      times: z.number().int().min(1).max(1_000_000).optional(),
      retryAfter: z.number().min(0).max(3600).optional(),
      scope: z.enum(["user", "global", "shared"]).optional(),
    }),
    "reset-stats": z.object({}),
  };
  type ControlAction = keyof typeof ControlBodies;

  function controlBody<A extends ControlAction>(action: A, body: unknown): z.output<(typeof ControlBodies)[A]> {
    const parsed = ControlBodies[action].safeParse(body);
    if (!parsed.success) throw new Error(`bad body for /control/${action}: ${z.prettifyError(parsed.error)}`);
    return parsed.data as z.output<(typeof ControlBodies)[A]>;
  }

  function runControl(action: ControlAction, body: unknown): unknown {
    switch (action) {
      case "guild":
        return double.createGuild(controlBody("guild", body));
      case "user":
        return userJson(double.createUser(controlBody("user", body)));
      case "member": {
        const { guildId, userId, ...rest } = controlBody("member", body);
        double.addMember(guildId, userId, rest);
        return { roles: double.memberRoles(guildId, userId) };
      }
      case "member/remove": {
        const { guildId, userId } = controlBody("member/remove", body);
        double.removeMember(guildId, userId);
        return { ok: true };
      }
      case "app":
        return double.registerApp(controlBody("app", body));
      case "login":
        double.logIn(controlBody("login", body).userId);
        return { ok: true };
      case "logout":
        controlBody("logout", body);
        double.logIn(null);
        return { ok: true };
      case "deny":
        double.denyAuthorizations(controlBody("deny", body).times);
        return { ok: true };
      case "webhook":
        return double.createWebhook(controlBody("webhook", body));
      case "webhook/delete":
        double.deleteWebhook(controlBody("webhook/delete", body).id);
        return { ok: true };
      case "fail": {
        const { route, ...answer } = controlBody("fail", body);
        double.failNext(route, answer);
        return { ok: true };
      }
      case "reset-stats":
        controlBody("reset-stats", body);
        double.resetStats();
        return { ok: true };
    }
  }

  const controlReads: Record<string, () => unknown> = {
    messages: () => double.messages(),
    "role-changes": () => double.roleChanges(),
    stats: () => double.stats(),
  };

  async function controlRoute(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    const action = path.slice("/control/".length);
    const answer = (a: Answer) => send(req, res, null, path, a);
    if (!isLoopback(req.socket.remoteAddress)) return answer(apiError(404, ERRORS.notFound));
    if (Object.hasOwn(controlReads, action)) {
      return answer(req.method === "GET" ? json(200, controlReads[action]()) : apiError(405, ERRORS.methodNotAllowed));
    }
    if (!Object.hasOwn(ControlBodies, action)) return answer(apiError(404, ERRORS.notFound));
    if (req.method !== "POST") return answer(apiError(405, ERRORS.methodNotAllowed));
    const body = await readBody(req, MAX_CONTROL_BODY);
    try {
      if (body === "too-large") throw new Error("body too large");
      const text = body.toString("utf8");
      answer(json(200, runControl(action as ControlAction, text ? JSON.parse(text) : {})));
    } catch (error) {
      answer(json(400, { message: (error as Error).message }));
    }
  }

  // ---- server ---------------------------------------------------------------------------------------------

  /** `/api/v10/...` and `/api/...` are the API; anything else (but the authorize page and control) is a 404. */
  function apiPath(pathname: string): string | undefined {
    const match = /^\/api(?:\/v10)?(\/.*)$/.exec(pathname);
    return match?.[1];
  }

  async function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://discord.local");
    if (url.pathname.startsWith("/control/")) return controlRoute(req, res, url.pathname);
    const path = apiPath(url.pathname);
    if (url.pathname === "/oauth2/authorize" || path === "/oauth2/authorize") {
      if (req.method === "GET") return send(req, res, null, url.pathname, authorizeRoute(url));
      if (req.method === "POST") {
        const body = await readBody(req, MAX_BODY);
        const decision = new URLSearchParams(body === "too-large" ? "" : body.toString("utf8"));
        return send(req, res, null, url.pathname, authorizeRoute(url, decision));
      }
      return send(req, res, null, url.pathname, apiError(405, ERRORS.methodNotAllowed));
    }
    if (path === undefined) return send(req, res, null, url.pathname, apiError(404, ERRORS.notFound));
    await apiRequest(req, res, url, path);
  }

  const server = http.createServer((req, res) => {
    onRequest(req, res).catch((error: Error) => {
      if (!res.headersSent) send(req, res, null, req.url ?? "/", json(500, { ...ERRORS.internal, detail: error.message }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const base = `http://${host}:${address.port}`;

  const double: DiscordDouble = {
    url: base,
    apiUrl: `${base}/api`,
    authorizeUrl: `${base}/oauth2/authorize`,
    get botToken() {
      return botToken;
    },
    botUserId: botUser.id,

    createGuild(spec = {}) {
      const id = spec.id ?? nextId();
      if (guilds.has(id)) throw new Error(`guild ${id} exists`);
      const everyone: RoleRecord = { id, name: "@everyone", position: 0, managed: false, permissions: 0n };
      const roles = new Map<string, RoleRecord>([[id, everyone]]);
      const positions = new Set<number>([0]);
      const addRole = (role: RoleRecord) => {
        if (positions.has(role.position)) throw new Error(`two roles at position ${role.position}`);
        positions.add(role.position);
        roles.set(role.id, role);
      };
      for (const role of spec.roles ?? []) {
        const roleId = role.id ?? nextId();
        addRole({
          id: roleId,
          name: role.name,
          position: role.position,
          managed: role.managed ?? false,
          permissions: toPermissions(role.permissions, 0n),
          ...(role.managed ? { tags: { integration_id: nextId() } } : {}),
        });
      }
      let botRoleId: string | null = null;
      if (spec.botRole) {
        botRoleId = nextId();
        addRole({
          id: botRoleId,
          name: botUser.username,
          position: spec.botRole.position,
          managed: true,
          permissions: toPermissions(spec.botRole.permissions, PERMISSIONS.manageRoles),
          tags: { bot_id: botUser.id },
        });
      }
      const guild: GuildRecord = {
        id,
        name: spec.name ?? "Spooks",
        roles,
        members: new Map(),
        botPresent: true,
        membersIntent: spec.membersIntent ?? true,
        botRoleId,
      };
      const botRoles = [...(botRoleId ? [botRoleId] : []), ...(spec.botExtraRoles ?? []).map((r) => roleIdOf(guild, r))];
      guild.members.set(botUser.id, { userId: botUser.id, roles: new Set(botRoles), nick: null, joinedAt: Date.now() });
      guilds.set(id, guild);
      return guildView(guild);
    },
    removeBotFromGuild: (guildId) => void (guildOrThrow(guildId).botPresent = false),
    setMembersIntent: (guildId, enabled) => void (guildOrThrow(guildId).membersIntent = enabled),
    createUser(spec = {}) {
      const id = spec.id ?? nextId();
      if (users.has(id)) throw new Error(`user ${id} exists`);
      const user: UserRecord = {
        id,
        username: spec.username ?? `user${id.slice(-6)}`,
        globalName: spec.globalName ?? null,
        avatar: spec.avatar ?? null,
      };
      users.set(id, user);
      return user;
    },
    addMember(guildId, userId, { roles = [], nick = null } = {}) {
      const guild = guildOrThrow(guildId);
      userOrThrow(userId);
      guild.members.set(userId, { userId, roles: new Set(roles.map((r) => roleIdOf(guild, r))), nick, joinedAt: Date.now() });
    },
    removeMember: (guildId, userId) => void guildOrThrow(guildId).members.delete(userId),
    memberRoles(guildId, userId) {
      const member = guildOrThrow(guildId).members.get(userId);
      return member ? [...member.roles] : undefined;
    },
    setMemberRoles(guildId, userId, roleIds) {
      const guild = guildOrThrow(guildId);
      const member = guild.members.get(userId);
      if (!member) throw new Error(`${userId} is not a member of ${guildId}`);
      member.roles = new Set(roleIds.map((r) => roleIdOf(guild, r)));
    },
    resetBotToken() {
      botToken = `${Buffer.from(botUser.id).toString("base64url")}.${randomToken(6)}.${randomToken(38)}`;
      return botToken;
    },

    registerApp({ clientId, clientSecret, redirectUris }) {
      const app = { clientId: clientId ?? nextId(), clientSecret: clientSecret ?? randomToken(32), redirectUris: [...redirectUris] };
      apps.set(app.clientId, app);
      return { clientId: app.clientId, clientSecret: app.clientSecret };
    },
    logIn(userId) {
      if (userId !== null) userOrThrow(userId);
      loggedIn = userId;
    },
    denyAuthorizations: (times = 1) => void (denials += times),
    expireCodes() {
      for (const code of codes.values()) code.expiresAt = Math.min(code.expiresAt, Date.now());
    },
    expireAccessTokens() {
      for (const grant of grants) grant.accessExpiresAt = Math.min(grant.accessExpiresAt, Date.now());
    },

    createWebhook({ channelId, name } = {}) {
      const id = nextId();
      const webhook = { id, token: randomToken(68), channelId: channelId ?? nextId(), name: name ?? "Spooks", url: "", deleted: false };
      webhook.url = `${base}/api/webhooks/${id}/${webhook.token}`;
      webhooks.set(id, webhook);
      const { deleted: _deleted, ...view } = webhook;
      return view;
    },
    deleteWebhook(webhookId) {
      const webhook = webhooks.get(webhookId);
      if (!webhook) throw new Error(`no webhook ${webhookId}`);
      webhook.deleted = true;
    },
    messages: (webhookId) => posted.filter((m) => webhookId === undefined || m.webhookId === webhookId),
    roleChanges: () => [...changes],

    failNext(route, answer) {
      if (!ROUTES.includes(route)) throw new Error(`unknown route ${route}`);
      forced.push({ ...answer, route, remaining: answer.times ?? 1 });
    },
    setRateLimit: (bucket, limit) => {
      if (!BUCKETS.includes(bucket)) throw new Error(`unknown bucket ${bucket}`);
      limiter.setLimit(bucket, limit);
    },
    setGlobalPerSecond: (perSecond) => limiter.setGlobalPerSecond(perSecond),
    stats: () => structuredClone(stats),
    requests: () => [...log],
    resetStats() {
      stats = emptyStats();
      log = [];
      limiter.reset();
    },
    clearRecords() {
      posted = [];
      changes = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return double;
}
