/**
 * A local Discord for tests and demo mode: real HTTP on 127.0.0.1 answering as ../../../shared/spec/REAL-WORLD.md
 * "Discord" says (REST API v10, OAuth2, channel webhooks), so the product's real client (@discordjs/rest, fetch)
 * is what gets exercised. Nothing here is product code; see ./README.md for what it serves and what it does not.
 *
 * Routes, under `/api/v10` and `/api` alike (@discordjs/rest builds `${api}/v10${route}`; webhook URLs are
 * `/api/webhooks/...`): POST /oauth2/token, POST /oauth2/token/revoke, GET /users/@me, GET /guilds/{guild}/roles,
 * GET /guilds/{guild}/members/{user}, GET /guilds/{guild}/members, PUT and DELETE
 * /guilds/{guild}/members/{user}/roles/{role}, POST /webhooks/{id}/{token}; slash commands (./interactions.ts):
 * PUT and GET /applications/{app}/guilds/{guild}/commands, PATCH /webhooks/{app}/{token}/messages/@original, and
 * interactions POSTed, signed, to an app's Interactions Endpoint URL. The authorize page is
 * GET /oauth2/authorize (also under /api and /api/v10): it redirects at once for the user a test logged in.
 *
 * Control routes (loopback callers only, for browser tests; JSON bodies, 400 {message} on bad input):
 * POST /control/guild, /control/user, /control/member, /control/member/remove, /control/app, /control/login,
 * /control/logout, /control/deny, /control/webhook, /control/webhook/delete, /control/fail, /control/reset-stats,
 * /control/interactions-endpoint, /control/interaction; GET /control/messages, /control/role-changes, /control/stats,
 * /control/interactions.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { controlAnswer, isControlAction } from "./control-routes.ts";
import { createInteractions, type GuildCommand, type InteractionRecord, type SendCommand, type SendInteraction } from "./interactions.ts";
import { checkWebhookMessage, mentionsOf, type Mentions } from "./message-limits.ts";
import { basicCredentials, createOAuth, formOf } from "./oauth.ts";
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
import { BUCKET_OF, matchRoute, ROUTES, type DiscordRoute, type Matched } from "./routes.ts";
import {
  apiError,
  createSnowflakes,
  decodeComponent,
  ERRORS,
  formError,
  json,
  memberJson,
  PERMISSIONS,
  randomToken,
  roleJson,
  userJson,
  webhookMessageJson,
  type Answer,
  type ApiError,
  type MemberRecord,
  type RoleRecord,
  type UserRecord,
} from "./shapes.ts";

export { ROUTES, type DiscordRoute };
export type { GuildCommand, InteractionRecord, SendCommand, SendInteraction };

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

export type RequestRecord = {
  method: string;
  path: string;
  route: DiscordRoute | null;
  status: number;
  /** Discord asks every client for `DiscordBot (url, version)`; @discordjs/rest sends its own. */
  userAgent: string | null;
  at: number;
};
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

  /** An application: its OAuth2 client and its Ed25519 key pair for interactions (`publicKey`, hex: the portal's "Public Key"). */
  registerApp(spec: { clientId?: string; clientSecret?: string; redirectUris: string[] }): {
    clientId: string;
    clientSecret: string;
    publicKey: string;
  };
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

  /** Slash commands (./interactions.ts). `clientId` defaults to the first app registered. */
  publicKeyOf(clientId?: string): string;
  /** Sets the app's Interactions Endpoint URL, checked as Discord checks it when saved (signed PING → PONG, forged → 401). */
  setInteractionsEndpoint(url: string, clientId?: string): Promise<void>;
  /** The guild's commands as the last bulk overwrite saved them. */
  guildCommands(guildId: string, clientId?: string): GuildCommand[];
  /** A member uses a registered command (as Discord's client would send it); answers the interaction once its answer came. */
  sendCommand(command: SendCommand): Promise<InteractionRecord>;
  /** Any interaction, however signed (an old registration's command, a forged or stale signature). */
  sendInteraction(spec: SendInteraction): Promise<InteractionRecord>;
  /** An earlier interaction's request sent again, byte for byte. */
  replayInteraction(interactionId: string): Promise<{ status: number | null; response: unknown }>;
  /** The signature headers of `body`, by the app's key. */
  signInteractionRequest(body: string, options?: { clientId?: string; timestamp?: number }): { signature: string; timestamp: string };
  interactions(): InteractionRecord[];
  /** The interaction once its caller sees a message (a deferred one: after the edit). */
  waitForInteractionMessage(interactionId: string, timeoutMs?: number): Promise<InteractionRecord>;
  /** Every interaction token issued so far expires now (as 15 minutes passing would). */
  expireInteractionTokens(): void;

  /** The next answers of `route` are forced (a 429 of a scope, or a 5xx), before any other check. */
  failNext(route: DiscordRoute, answer: ForcedAnswer): void;
  /** Forgets the answers forced and not given yet: every route answers as Discord would again. */
  clearFailures(): void;
  /** Every API request waits `ms` before it is answered (a slow Discord: its answers come late, but come); 0 ends it. */
  setLatency(ms: number): void;
  setRateLimit(bucket: Bucket, limit: BucketLimit): void;
  setGlobalPerSecond(perSecond: number): void;
  stats(): DoubleStats;
  /** Every request answered, in order (at most the last 100,000). */
  requests(): RequestRecord[];
  /** Zeroes the counters, forgets the request log and starts every rate-limit window afresh. */
  resetStats(): void;
  /** Forgets the posted messages, the role changes and the interactions. */
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
type Forced = ForcedAnswer & { remaining: number; route: DiscordRoute };

const isLoopback = (address: string | undefined) => address !== undefined && (address === "::1" || /^(::ffff:)?127\./.test(address));

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

const toPermissions = (value: bigint | string | undefined, fallback: bigint) => (value === undefined ? fallback : BigInt(value));

export async function startDiscordDouble(options: DiscordDoubleOptions = {}): Promise<DiscordDouble> {
  const nextId = createSnowflakes();
  const limiter = createRateLimiter({ limits: options.rateLimits, globalPerSecond: options.globalPerSecond });
  let botToken = options.botToken ?? `${Buffer.from(nextId()).toString("base64url")}.${randomToken(6)}.${randomToken(38)}`;
  const botUser: UserRecord = { id: nextId(), username: options.botUsername ?? "Spooks Bot", globalName: null, avatar: null, bot: true };

  const users = new Map<string, UserRecord>([[botUser.id, botUser]]);
  const guilds = new Map<string, GuildRecord>();
  const webhooks = new Map<string, Webhook & { deleted: boolean }>();
  const oauth = createOAuth({ users, nextId });
  const slash = createInteractions({
    users,
    memberOf(guildId, userId) {
      const guild = guilds.get(guildId);
      return guild?.botPresent ? guild.members.get(userId) : null;
    },
    nextId,
    botUser,
  });
  let forced: Forced[] = [];
  let latencyMs = 0;
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

  // ---- authentication ------------------------------------------------------------------------------------

  type Caller = { kind: "bot" } | { kind: "bearer"; user: UserRecord };
  function callerOf(req: http.IncomingMessage): Caller | undefined {
    const header = req.headers.authorization ?? "";
    if (header === `Bot ${botToken}`) return { kind: "bot" };
    const bearer = /^Bearer (\S+)$/.exec(header);
    const user = bearer ? oauth.userOfAccessToken(bearer[1]) : undefined;
    return user ? { kind: "bearer", user } : undefined;
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
    return typeof raw === "string" ? decodeComponent(raw) : null;
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
    const message = webhookMessageJson({
      id: nextId(),
      webhook,
      content: check.content,
      embeds: check.embeds,
      mentions,
      mentionedUsers: mentions.users.flatMap((id) => users.get(id) ?? []),
      at: now,
    });
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
    if (route === "POST /webhooks/{webhook}/{token}" || route === "PATCH /webhooks/{webhook}/{token}/messages/{message}")
      return { caller: "webhook", major: `${params.webhook}/${params.token}`, global: false };
    if (route.includes("/oauth2/")) {
      const clientId = basicCredentials(req.headers.authorization)?.clientId ?? form().get("client_id") ?? "anonymous";
      return { caller: `client:${clientId}`, major: "global", global: false };
    }
    const caller = req.headers.authorization ?? "anonymous";
    return { caller, major: params.guild ?? "global", global: true };
  }

  function handle(req: http.IncomingMessage, matched: Matched, url: URL, body: Buffer): Answer | Promise<Answer> {
    const { route, params } = matched;
    if (route === "POST /oauth2/token") return oauth.token(req, body);
    if (route === "POST /oauth2/token/revoke") return oauth.revoke(req, body);
    if (route === "POST /webhooks/{webhook}/{token}") return webhookRoute(req, params, url.searchParams, body);
    if (route === "PATCH /webhooks/{webhook}/{token}/messages/{message}")
      return slash.editOriginal(params, req.headers["content-type"] ?? "", body);
    const caller = callerOf(req);
    if (!caller) return apiError(401, ERRORS.unauthorized);
    if (route === "GET /users/@me") return json(200, userJson(caller.kind === "bot" ? botUser : caller.user));
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
      case "PUT /applications/{application}/guilds/{guild}/commands":
        return slash.putCommands(params, body);
      case "GET /applications/{application}/guilds/{guild}/commands":
        return slash.getCommands(params);
    }
  }

  async function apiRequest(req: http.IncomingMessage, res: http.ServerResponse, url: URL, path: string) {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
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
    const answer = await handle(req, matched, url, body);
    send(req, res, matched.route, path, { ...answer, headers: { ...check.headers, ...answer.headers } });
  }

  function record(method: string, path: string, route: DiscordRoute | null, answer: Answer, userAgent: string | undefined) {
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
    log.push({ method, path, route, status: answer.status, userAgent: userAgent ?? null, at: Date.now() });
    if (log.length > 100_000) log = log.slice(-100_000);
  }

  function send(req: http.IncomingMessage, res: http.ServerResponse, route: DiscordRoute | null, path: string, answer: Answer) {
    if (route !== null || !path.startsWith("/control/")) record(req.method ?? "GET", path, route, answer, req.headers["user-agent"]);
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

  async function controlRoute(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    const action = path.slice("/control/".length);
    if (!isLoopback(req.socket.remoteAddress)) return send(req, res, null, path, apiError(404, ERRORS.notFound));
    const body = req.method === "POST" && isControlAction(action) ? await readBody(req, MAX_CONTROL_BODY) : Buffer.alloc(0);
    if (body === "too-large") return send(req, res, null, path, json(400, { message: "body too large" }));
    send(req, res, null, path, await controlAnswer(double, req.method ?? "GET", action, body.toString("utf8")));
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
      if (req.method === "GET") return send(req, res, null, url.pathname, oauth.authorize(url));
      if (req.method === "POST") {
        const body = await readBody(req, MAX_BODY);
        const decision = new URLSearchParams(body === "too-large" ? "" : body.toString("utf8"));
        return send(req, res, null, url.pathname, oauth.authorize(url, decision));
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

    registerApp(spec) {
      const app = oauth.registerApp(spec);
      return { ...app, publicKey: slash.addApp(app.clientId) };
    },
    logIn(userId) {
      if (userId !== null && users.get(userId)?.bot) throw new Error("the bot cannot log in");
      oauth.logIn(userId);
    },
    denyAuthorizations: (times) => oauth.denyAuthorizations(times),
    expireCodes: () => oauth.expireCodes(),
    expireAccessTokens: () => oauth.expireAccessTokens(),

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

    publicKeyOf: (clientId) => slash.publicKeyOf(clientId),
    setInteractionsEndpoint: (url, clientId) => slash.setEndpoint(clientId, url),
    guildCommands: (guildId, clientId) => slash.guildCommands(clientId, guildId),
    sendCommand: (command) => slash.sendCommand(command),
    sendInteraction: (spec) => slash.sendInteraction(spec),
    replayInteraction: (interactionId) => slash.replay(interactionId),
    signInteractionRequest: (body, { clientId, timestamp } = {}) => slash.signRequest(clientId, body, timestamp),
    interactions: () => slash.interactions(),
    waitForInteractionMessage: (interactionId, timeoutMs) => slash.waitForMessage(interactionId, timeoutMs),
    expireInteractionTokens: () => slash.expireTokens(),

    failNext(route, answer) {
      if (!ROUTES.includes(route)) throw new Error(`unknown route ${route}`);
      forced.push({ ...answer, route, remaining: answer.times ?? 1 });
    },
    clearFailures() {
      forced = [];
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
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
      slash.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return double;
}
