/**
 * What the Discord double answers: error bodies (REAL-WORLD.md "Discord", "Common rules"), ids, and the JSON of
 * users, roles, members and messages with the fields Discord sends.
 */
import { randomBytes } from "node:crypto";

export type ApiError = { code: number; message: string; errors?: unknown };

export const ERRORS = {
  unauthorized: { message: "401: Unauthorized", code: 0 },
  notFound: { message: "404: Not Found", code: 0 },
  methodNotAllowed: { message: "405: Method Not Allowed", code: 0 },
  internal: { message: "500: Internal Server Error", code: 0 },
  unknownGuild: { message: "Unknown Guild", code: 10004 },
  unknownMember: { message: "Unknown Member", code: 10007 },
  unknownRole: { message: "Unknown Role", code: 10011 },
  unknownWebhook: { message: "Unknown Webhook", code: 10015 },
  missingAccess: { message: "Missing Access", code: 50001 },
  missingPermissions: { message: "Missing Permissions", code: 50013 },
  invalidWebhookToken: { message: "Invalid Webhook Token", code: 50027 },
  invalidJson: { message: "The request body contains invalid JSON.", code: 50109 },
  tooLarge: { message: "Request entity too large", code: 40005 },
} satisfies Record<string, ApiError>;

/** A 400 50035 naming one field, as Discord words a query or path value it cannot read. */
export function formError(field: string, code: string, message: string): ApiError {
  return { code: 50035, message: "Invalid Form Body", errors: { [field]: { _errors: [{ code, message }] } } };
}

export const PERMISSIONS = { administrator: 1n << 3n, manageRoles: 1n << 28n } as const;

const DISCORD_EPOCH = 1_420_070_400_000n;
/** Ids are snowflakes: 19 digits here (any id of 17-19 digits is one @discordjs/rest recognises). */
export function createSnowflakes(start = Date.UTC(2025, 0, 1)) {
  let increment = 0n;
  return () => String(((BigInt(start) - DISCORD_EPOCH) << 22n) + increment++);
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** A random token of `length` letters and digits (Discord's codes and OAuth2 tokens are 30 such characters). */
export function randomToken(length = 30): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join("");
}

/** Discord's timestamps: ISO 8601 with microseconds and an explicit +00:00. */
export const discordTimestamp = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");

export type UserRecord = { id: string; username: string; globalName: string | null; avatar: string | null; bot?: boolean };

export function userJson(user: UserRecord) {
  return {
    id: user.id,
    username: user.username,
    avatar: user.avatar,
    discriminator: "0",
    public_flags: 0,
    flags: 0,
    ...(user.bot ? { bot: true } : {}),
    banner: null,
    accent_color: null,
    global_name: user.globalName,
    avatar_decoration_data: null,
    banner_color: null,
  };
}

export type RoleRecord = {
  id: string;
  name: string;
  position: number;
  managed: boolean;
  permissions: bigint;
  tags?: Record<string, string | null>;
};

export function roleJson(role: RoleRecord) {
  return {
    id: role.id,
    name: role.name,
    description: null,
    permissions: String(role.permissions),
    position: role.position,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    managed: role.managed,
    mentionable: false,
    flags: 0,
    ...(role.tags ? { tags: role.tags } : {}),
  };
}

export type MemberRecord = { userId: string; roles: Set<string>; nick: string | null; joinedAt: number };

export function memberJson(member: MemberRecord, user: UserRecord) {
  return {
    avatar: null,
    banner: null,
    communication_disabled_until: null,
    flags: 0,
    joined_at: discordTimestamp(member.joinedAt),
    nick: member.nick,
    pending: false,
    premium_since: null,
    roles: [...member.roles],
    unusual_dm_activity_until: null,
    user: userJson(user),
    mute: false,
    deaf: false,
  };
}

/** A message a channel webhook posted, as Discord stores it (and answers it with `?wait=true`). */
export function webhookMessageJson(message: {
  id: string;
  webhook: { id: string; name: string; channelId: string };
  content: string;
  embeds: Record<string, unknown>[];
  mentions: { everyone: boolean; roles: string[] };
  mentionedUsers: UserRecord[];
  at: number;
}) {
  const { webhook } = message;
  return {
    id: message.id,
    type: 0,
    content: message.content,
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
    embeds: message.embeds.map((embed) => ({ type: "rich", ...embed })),
    mentions: message.mentionedUsers.map(userJson),
    mention_roles: message.mentions.roles,
    pinned: false,
    mention_everyone: message.mentions.everyone,
    tts: false,
    timestamp: discordTimestamp(message.at),
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: webhook.id,
  };
}

/** One answer of the double, before it is written: JSON unless `contentType` says otherwise. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string>; contentType?: string };
export const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({ status, body, headers });
export const apiError = (status: number, error: ApiError) => json(status, error);

/** decodeURIComponent, keeping a malformed text as it is. */
export function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
