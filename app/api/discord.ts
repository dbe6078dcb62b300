/**
 * Discord holder roles (issue 25; docs/discord.md): linking a wallet to a Discord account, and the admin's
 * rules. Every route answers 404 when the feature is off (DISCORD_* unset): nothing of it exists then.
 */
import { z } from "zod";
import {
  addressSchema,
  defineRoute,
  errorBody,
  notFoundIssue,
  signedFields,
  timestamp,
  type ClientAnswer,
  type RequestBody,
  errorAnswer,
} from "./kit.ts";

const TAG = "Discord";
const ADMIN_TAG = "Admin Discord";
const EXAMPLE_ADDRESS = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const EXAMPLE_USER = "1187654321098765432";
const EXAMPLE_ROLE = "1187654321098765999";
const EXAMPLE_TOKEN = "q3Hk9vT2mZp8Lw4Rx7Nc1Ys5Bd6Fg0Ja";

export const MAX_RULES = 50;

const OFF = errorAnswer("Discord holder roles are not configured on this site (or the thing named does not exist).", "Not found");

const discordUserId = z
  .string()
  .regex(/^\d{17,20}$/)
  .meta({ description: "A Discord id (snowflake, 17-20 digits)." });
const roleId = z
  .string({ error: "roleId must be a Discord role id" })
  .regex(/^\d{17,20}$/, "roleId must be a Discord role id (17-20 digits)")
  .meta({ description: "A role of the Discord server." });

const linkToken = z
  .string()
  .min(16, "Unknown link token")
  .max(100, "Unknown link token")
  .regex(/^[A-Za-z0-9_-]+$/, "Unknown link token")
  .meta({ description: "The single-use token /discord/callback put in /discord/linked's address (10 minutes)." });

export const pendingLinkSchema = z
  .object({
    address: z.string(),
    discordUserId,
    username: z.string(),
    message: z.string().meta({ description: "The exact text the wallet signs (signed message `discord-link`)." }),
  })
  .meta({ id: "PendingDiscordLink" });

export const linkedSchema = z.object({ address: z.string(), discordUserId, username: z.string() }).meta({ id: "DiscordLink" });

const heldRole = z.object({ roleId, name: z.string() });

export const linkStatusSchema = z
  .object({
    linked: z.boolean(),
    username: z.string().optional().meta({ description: "The linked account's username (never its id)." }),
    inGuild: z
      .boolean()
      .optional()
      .meta({ description: "False when Discord says the account is not in the server (roles wait for it to join)." }),
    roles: z.array(heldRole).optional().meta({ description: "The holder roles the account holds now (of the rules' roles)." }),
  })
  .meta({ id: "DiscordLinkStatus" });

const gone = errorAnswer(
  "The link token was already used or has expired: start again.",
  "This link token has expired: start again from the staking page",
);

export const getPendingLink = defineRoute({
  operationId: "getPendingDiscordLink",
  method: "GET",
  path: "/api/discord/pending/{linkToken}",
  tag: TAG,
  summary: "What the wallet is asked to sign to finish a link",
  description: "After Discord's authorization: the Discord account, the wallet and the message to sign.",
  auth: "none",
  params: z.object({
    linkToken: z
      .string()
      .refine((value) => /^[A-Za-z0-9_-]{16,100}$/.test(value), notFoundIssue("Unknown link token: start again from the staking page"))
      .meta({ description: "The single-use token of /discord/linked's address." }),
  }),
  responses: {
    200: {
      description: "The pending link.",
      schema: pendingLinkSchema,
      example: {
        address: EXAMPLE_ADDRESS,
        discordUserId: EXAMPLE_USER,
        username: "ghostly",
        message: `Link Discord user ghostly (${EXAMPLE_USER}) to ${EXAMPLE_ADDRESS}. Timestamp: 2026-10-31T18:00:00.000Z`,
      },
    },
    404: OFF,
    410: gone,
  },
});

export const linkDiscord = defineRoute({
  operationId: "linkDiscord",
  method: "POST",
  path: "/api/discord/link",
  tag: TAG,
  summary: "Link the wallet to the Discord account (the wallet's signature)",
  description:
    "The wallet signs the pending link's message (GET /api/discord/pending/{linkToken}); the link replaces the wallet's former " +
    "account and the account's former wallet (their roles go within a minute). The signature is accepted once, within 10 minutes.",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "discord-link",
  body: {
    kind: "json",
    schema: z.object({ linkToken, signature: signedFields.signature }),
    example: {
      linkToken: EXAMPLE_TOKEN,
      signature: "H1oxNroEjHSVUnZGb5p1LXVBY2YkTT3iYPmeUtkEOK2cJ5OQhGnPBhpkXJ/l/PafXfHQ54IRiHzpcbrq5mJ3ar0=",
    },
  },
  responses: {
    200: {
      description: "Linked.",
      schema: linkedSchema,
      example: { address: EXAMPLE_ADDRESS, discordUserId: EXAMPLE_USER, username: "ghostly" },
    },
    404: OFF,
    410: gone,
  },
});

export const unlinkDiscord = defineRoute({
  operationId: "unlinkDiscord",
  method: "DELETE",
  path: "/api/discord/link",
  tag: TAG,
  summary: "Unlink the wallet from its Discord account",
  description:
    "The holder roles go within a minute. The message must be signed by `address` within 10 minutes; each signature is accepted once.",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "discord-unlink",
  body: {
    kind: "json",
    schema: z.object(signedFields),
    example: {
      address: EXAMPLE_ADDRESS,
      message: `Unlink Discord from ${EXAMPLE_ADDRESS}. Timestamp: 2026-10-31T18:00:00.000Z`,
      signature: "H1oxNroEjHSVUnZGb5p1LXVBY2YkTT3iYPmeUtkEOK2cJ5OQhGnPBhpkXJ/l/PafXfHQ54IRiHzpcbrq5mJ3ar0=",
    },
  },
  responses: {
    200: {
      description: "Unlinked.",
      schema: z.object({ address: z.string(), unlinked: z.literal(true) }).meta({ id: "DiscordUnlinked" }),
      example: { address: EXAMPLE_ADDRESS, unlinked: true },
    },
    404: {
      ...OFF,
      description: "The wallet is not linked, or the feature is off.",
      example: { message: "This wallet is not linked to a Discord account" },
    },
  },
});

export const getDiscordLink = defineRoute({
  operationId: "getDiscordLink",
  method: "GET",
  path: "/api/discord/link/{address}",
  tag: TAG,
  summary: "Whether a wallet is linked, and its holder roles",
  auth: "none",
  params: z.object({ address: addressSchema }),
  responses: {
    200: {
      description: "The link's state.",
      schema: linkStatusSchema,
      example: { linked: true, username: "ghostly", inGuild: true, roles: [{ roleId: EXAMPLE_ROLE, name: "Staker" }] },
    },
    404: OFF,
  },
});

// Admin -------------------------------------------------------------------------------------------

const count = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(0, `${what} must not be negative`);

export const ruleSchema = z
  .object({
    roleId,
    minStaked: count("minStaked").max(100_000).optional().meta({ description: "Items staked now." }),
    minPoints: count("minPoints").max(1_000_000_000_000).optional().meta({ description: "Points balance." }),
    minLegendary: count("minLegendary").max(100_000).optional().meta({ description: "Legendary items staked now." }),
    minStakedDays: count("minStakedDays").max(100_000).optional().meta({ description: "Days since the longest open stake began." }),
  })
  .strict()
  .meta({ id: "DiscordRule", description: "A member earns roleId when every condition given holds." });

export const rulesBody = z
  .array(ruleSchema, { error: "The rules must be a list" })
  .max(MAX_RULES, `At most ${MAX_RULES} rules`)
  .refine((rules) => new Set(rules.map((rule) => rule.roleId)).size === rules.length, "A role must not have two rules");

const roleView = z.object({
  id: roleId,
  name: z.string(),
  position: z.number().int(),
  managed: z.boolean(),
  assignable: z.boolean(),
  reason: z.string().nullable().meta({ description: "Why the bot cannot assign it (null when it can)." }),
});

export const rulesAnswerSchema = z
  .object({
    rules: z.array(ruleSchema),
    roles: z.array(roleView).nullable().meta({ description: "The server's roles (null when Discord could not be asked)." }),
  })
  .meta({ id: "DiscordRules" });

const unassignable = {
  description: "A rule names a role the server does not have, or one the bot cannot assign (the reason is given); nothing was saved.",
  schema: errorBody,
  example: {
    message:
      "The bot cannot assign Moderator (1187654321098765999): The role Moderator is at or above the bot's highest role (position 5 ≥ 4): move the bot's role above it",
  },
};

const discordDown = errorAnswer("Discord could not be asked (or refused the bot token).", "Discord could not be reached; try again");

export const getDiscordRules = defineRoute({
  operationId: "getDiscordRules",
  method: "GET",
  path: "/api/admin/discord/rules",
  tag: ADMIN_TAG,
  summary: "The holder-role rules, and the server's roles",
  auth: "admin-session",
  responses: {
    200: {
      description: "The rules in order, and the roles the bot sees.",
      schema: rulesAnswerSchema,
      example: {
        rules: [{ roleId: EXAMPLE_ROLE, minStaked: 1 }],
        roles: [{ id: EXAMPLE_ROLE, name: "Staker", position: 2, managed: false, assignable: true, reason: null }],
      },
    },
    404: OFF,
  },
});

export const putDiscordRules = defineRoute({
  operationId: "putDiscordRules",
  method: "PUT",
  path: "/api/admin/discord/rules",
  tag: ADMIN_TAG,
  summary: "Replace the holder-role rules",
  description:
    "Every role is checked against GET /guilds/{guild}/roles first: a role at or above the bot's highest role, a managed one, @everyone, or " +
    "one the server does not have refuses the whole save. Roles no rule names any more are left as they are in Discord.",
  auth: "admin-session",
  body: {
    kind: "json",
    schema: rulesBody,
    example: [
      { roleId: EXAMPLE_ROLE, minStaked: 1 },
      { roleId: "1187654321098765998", minStaked: 3, minPoints: 500 },
    ],
  },
  responses: {
    200: { description: "Saved.", schema: rulesAnswerSchema, example: { rules: [{ roleId: EXAMPLE_ROLE, minStaked: 1 }], roles: null } },
    400: unassignable,
    404: OFF,
    502: discordDown,
  },
});

const change = z.object({ address: z.string(), roleId });

export const previewDiscordRules = defineRoute({
  operationId: "previewDiscordRules",
  method: "POST",
  path: "/api/admin/discord/preview",
  tag: ADMIN_TAG,
  summary: "What saving these rules would change",
  description:
    "Linked members who would gain or lose a role, against the roles they hold now (as the sync granted them). Nothing is saved.",
  auth: "admin-session",
  body: { kind: "json", schema: rulesBody, example: [{ roleId: EXAMPLE_ROLE, minStaked: 3 }] },
  responses: {
    200: {
      description: "The gains and losses.",
      schema: z.object({ gain: z.array(change), lose: z.array(change) }).meta({ id: "DiscordPreview" }),
      example: { gain: [{ address: EXAMPLE_ADDRESS, roleId: EXAMPLE_ROLE }], lose: [] },
    },
    404: OFF,
  },
});

export const sweepSchema = z.object({
  startedAt: timestamp,
  finishedAt: timestamp,
  source: z.enum(["scheduled", "cli", "startup"]),
  members: z.number().int(),
  absent: z.number().int(),
  added: z.number().int(),
  removed: z.number().int(),
  difference: z.number().int(),
  requests: z.number().int(),
  errors: z.number().int(),
});

export const discordStatusSchema = z
  .object({
    links: z.array(
      z.object({
        address: z.string(),
        discordUserId,
        username: z.string(),
        linkedAt: timestamp,
        inGuild: z.boolean(),
        roles: z.array(roleId),
      }),
    ),
    lastSweep: sweepSchema.nullable(),
    problems: z.array(
      z.object({ kind: z.enum(["role-unassignable", "bad-token"]), roleId: roleId.nullable(), message: z.string(), since: timestamp }),
    ),
  })
  .meta({ id: "DiscordStatus" });

export const getDiscordStatus = defineRoute({
  operationId: "getDiscordStatus",
  method: "GET",
  path: "/api/admin/discord/status",
  tag: ADMIN_TAG,
  summary: "Linked members, the last sweep, and what Discord refused",
  auth: "admin-session",
  responses: {
    200: {
      description: "The linked members with the roles granted, the last reconciliation sweep, and the problems a person must fix.",
      schema: discordStatusSchema,
      example: {
        links: [
          {
            address: EXAMPLE_ADDRESS,
            discordUserId: EXAMPLE_USER,
            username: "ghostly",
            linkedAt: "2026-10-31T18:00:00.000Z",
            inGuild: true,
            roles: [EXAMPLE_ROLE],
          },
        ],
        lastSweep: null,
        problems: [],
      },
    },
    404: OFF,
  },
});

export type DiscordRuleInput = RequestBody<typeof putDiscordRules>[number];
export type DiscordRulesAnswer = ClientAnswer<typeof getDiscordRules>;
export type DiscordPreview = ClientAnswer<typeof previewDiscordRules>;
export type DiscordStatus = ClientAnswer<typeof getDiscordStatus>;
export type DiscordLinkStatus = ClientAnswer<typeof getDiscordLink>;
export type PendingDiscordLink = ClientAnswer<typeof getPendingLink>;
