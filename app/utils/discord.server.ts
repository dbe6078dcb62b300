/**
 * Our side of Discord (issue 25): every call goes through @discordjs/rest (with discord-api-types' routes),
 * so rate limits, buckets and retries are the library's. The bot's client is made once per process and
 * configuration; a user's OAuth2 token gets a client of its own for its one call (GET /users/@me).
 */
import { DiscordAPIError, REST, type RESTOptions } from "@discordjs/rest";
import { Routes, type APIGuildMember, type APIRole, type APIUser, type RESTPostOAuth2AccessTokenResult } from "discord-api-types/v10";
import { unassignableReason, type DiscordRule } from "../domain/discord.ts";
import { Refusal } from "../domain/errors.ts";
import type { DiscordConfig } from "./env.server.ts";

/** Discord's error codes the product acts on. */
export const DISCORD_CODES = { unknownMember: 10007, unknownRole: 10011, unknownGuild: 10004, missingPermissions: 50013 } as const;

export type GuildRole = { id: string; name: string; position: number; managed: boolean; assignable: boolean; reason: string | null };

export type DiscordClient = {
  rest: REST;
  config: DiscordConfig;
  /** Requests this client has sent (answers and refusals alike, 429s included), for the sweep's figures. */
  requests(): number;
  /** The guild's roles with whether the bot may assign each (its highest role's position decides). */
  guildRoles(): Promise<GuildRole[]>;
  member(userId: string): Promise<APIGuildMember>;
  addRole(userId: string, roleId: string, reason: string): Promise<void>;
  removeRole(userId: string, roleId: string, reason: string): Promise<void>;
  /** The code of `redirect_uri`'s authorization exchanged (form-urlencoded, HTTP Basic client auth) and the user read. */
  userOfCode(code: string, redirectUri: string): Promise<APIUser>;
};

const clients = new WeakMap<DiscordConfig, DiscordClient>();

/** The process's client for `config` (one REST instance: its rate-limit state is shared by every caller). */
export function discordClient(config: DiscordConfig): DiscordClient {
  let client = clients.get(config);
  if (!client) {
    client = createDiscordClient(config);
    clients.set(config, client);
  }
  return client;
}

/**
 * `options` are the library's own (tests and the bench raise `globalRequestsPerSecond` against the double,
 * whose global limit they raise too; Discord's is 50 a second per bot, the library's default).
 */
export function createDiscordClient(config: DiscordConfig, options: Partial<RESTOptions> = {}): DiscordClient {
  const rest = new REST({ ...options, api: config.apiUrl, version: "10" }).setToken(config.botToken);
  let requests = 0;
  rest.on("response", () => void (requests += 1));
  let botUserId: string | undefined;

  return {
    rest,
    config,
    requests: () => requests,
    async guildRoles() {
      botUserId ??= ((await rest.get(Routes.user())) as APIUser).id;
      const [roles, bot] = await Promise.all([
        rest.get(Routes.guildRoles(config.guildId)) as Promise<APIRole[]>,
        rest.get(Routes.guildMember(config.guildId, botUserId)) as Promise<APIGuildMember>,
      ]);
      const position = new Map(roles.map((role) => [role.id, role.position]));
      const botHighest = Math.max(0, ...bot.roles.map((id) => position.get(id) ?? 0));
      return roles
        .map((role) => {
          const reason = unassignableReason(role, config.guildId, botHighest);
          return { id: role.id, name: role.name, position: role.position, managed: role.managed, assignable: reason === null, reason };
        })
        .sort((a, b) => b.position - a.position);
    },
    member: async (userId) => (await rest.get(Routes.guildMember(config.guildId, userId))) as APIGuildMember,
    addRole: async (userId, roleId, reason) => void (await rest.put(Routes.guildMemberRole(config.guildId, userId, roleId), { reason })),
    removeRole: async (userId, roleId, reason) =>
      void (await rest.delete(Routes.guildMemberRole(config.guildId, userId, roleId), { reason })),
    async userOfCode(code, redirectUri) {
      const oauth = new REST({ api: config.apiUrl, version: "10" });
      const basic = Buffer.from(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`).toString("base64");
      const token = (await oauth.post(Routes.oauth2TokenExchange(), {
        auth: false,
        passThroughBody: true,
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri }).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${basic}` },
      })) as RESTPostOAuth2AccessTokenResult;
      const asUser = new REST({ api: config.apiUrl, version: "10", authPrefix: "Bearer" }).setToken(token.access_token);
      const user = (await asUser.get(Routes.user())) as APIUser;
      // The link needs nothing more: the token is given back at once (revoking is best effort).
      await oauth
        .post(Routes.oauth2TokenRevocation(), {
          auth: false,
          passThroughBody: true,
          body: new URLSearchParams({ token: token.access_token }).toString(),
          headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${basic}` },
        })
        .catch(() => {});
      return user;
    },
  };
}

export function isDiscordError(error: unknown, status: number, code?: number | string): error is DiscordAPIError {
  return error instanceof DiscordAPIError && error.status === status && (code === undefined || error.code === code);
}

/**
 * Refuses (400, with the reason) rules naming a role the bot cannot assign or one the server does not have;
 * answers the guild's roles.
 */
export async function checkRulesAssignable(client: DiscordClient, rules: readonly DiscordRule[]): Promise<GuildRole[]> {
  let roles: GuildRole[];
  try {
    roles = await client.guildRoles();
  } catch (error) {
    throw discordUnavailable(error);
  }
  const byId = new Map(roles.map((role) => [role.id, role]));
  for (const rule of rules) {
    const role = byId.get(rule.roleId);
    if (!role) throw new Refusal(400, `The Discord server has no role ${rule.roleId}`);
    if (!role.assignable) throw new Refusal(400, `The bot cannot assign ${role.name} (${role.id}): ${role.reason}`);
  }
  return roles;
}

/** Discord failing us, as the admin reads it: a 401 is a bad bot token, anything else Discord being unreachable. */
export function discordUnavailable(error: unknown): Refusal {
  if (isDiscordError(error, 401)) return new Refusal(502, "Discord refused the bot token (401): set a valid DISCORD_BOT_TOKEN");
  if (error instanceof DiscordAPIError) return new Refusal(502, `Discord answered ${error.status} ${error.code}: ${error.message}`);
  return new Refusal(502, "Discord could not be reached; try again");
}
