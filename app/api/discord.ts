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
  pendingApprovalAnswer,
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
    roles: z.array(heldRole).optional().meta({ description: "The holder roles the account holds now (of the rules' roles)." }),
  })
  .meta({ id: "DiscordLinkStatus" });

export const linkedAccountSchema = z
  .object({
    linked: z.boolean(),
    username: z.string().optional().meta({ description: "The linked account's username (never its id)." }),
    inGuild: z
      .boolean()
      .optional()
      .meta({ description: "False when Discord says the account is not in the server (roles wait for it to join)." }),
    roles: z.array(heldRole).optional().meta({ description: "The holder roles the account holds now (of the rules' roles)." }),
  })
  .meta({ id: "DiscordLinkedAccount" });

const otherBrowser = errorAnswer(
  "The link was started in another browser: only the browser whose GET /discord/link set the link cookie may see or finish it.",
  "This link was started in another browser: start again from the staking page",
);

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
  description:
    "After Discord's authorization: the Discord account, the wallet and the message to sign. Only to the browser that started the " +
    "link (its `spooks_discord_link` cookie, set by GET /discord/link: HttpOnly, SameSite=Lax, 10 minutes).",
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
    403: otherBrowser,
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
    "account and the account's former wallet (their roles go within a minute). The signature is accepted once, within 10 minutes. " +
    "Only from the browser that started the link (its `spooks_discord_link` cookie): nobody can start a link for another's wallet " +
    "and have them sign it.",
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
    403: otherBrowser,
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
  description:
    "Public: whether the wallet is linked and the holder roles its account holds, never which account (its owner sees that with " +
    "POST /api/discord/account). Role names are read from Discord at most once a minute, and not at all while the role sync is " +
    "stopped (ids stand in).",
  auth: "none",
  params: z.object({ address: addressSchema }),
  responses: {
    200: {
      description: "The link's state.",
      schema: linkStatusSchema,
      example: { linked: true, roles: [{ roleId: EXAMPLE_ROLE, name: "Staker" }] },
    },
    404: OFF,
  },
});

export const getDiscordAccount = defineRoute({
  operationId: "getDiscordAccount",
  method: "POST",
  path: "/api/discord/account",
  tag: TAG,
  summary: "The Discord account a wallet is linked to, to its owner",
  description:
    "The wallet signs `Show the Discord account linked to {address}. Timestamp: {ISO}` (within 10 minutes, each signature once) " +
    "and is answered its account's username, whether the account is in the server, and its holder roles.",
  auth: "signature",
  rateLimit: "signed",
  signedMessage: "discord-account",
  body: {
    kind: "json",
    schema: z.object(signedFields),
    example: {
      address: EXAMPLE_ADDRESS,
      message: `Show the Discord account linked to ${EXAMPLE_ADDRESS}. Timestamp: 2026-10-31T18:00:00.000Z`,
      signature: "H1oxNroEjHSVUnZGb5p1LXVBY2YkTT3iYPmeUtkEOK2cJ5OQhGnPBhpkXJ/l/PafXfHQ54IRiHzpcbrq5mJ3ar0=",
    },
  },
  responses: {
    200: {
      description: "The wallet's link.",
      schema: linkedAccountSchema,
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
  requires: { permission: "read", doing: "read the Discord rules" },
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
  requires: { permission: "discord", doing: "change the Discord rules" },
  body: {
    kind: "json",
    schema: rulesBody,
    example: [
      { roleId: EXAMPLE_ROLE, minStaked: 1 },
      { roleId: "1187654321098765998", minStaked: 3, minPoints: 500 },
    ],
  },
  responses: {
    202: pendingApprovalAnswer,
    200: { description: "Saved.", schema: rulesAnswerSchema, example: { rules: [{ roleId: EXAMPLE_ROLE, minStaked: 1 }], roles: null } },
    400: unassignable,
    404: OFF,
    502: discordDown,
  },
});

const change = z.object({
  address: z.string(),
  roleId,
  reason: z.string().meta({
    description: "Why, with the member's figures: for a loss the conditions it misses ('needs 30 staked, has 23'), for a gain what it has.",
  }),
});

export const previewDiscordRules = defineRoute({
  operationId: "previewDiscordRules",
  method: "POST",
  path: "/api/admin/discord/preview",
  tag: ADMIN_TAG,
  summary: "What saving these rules would change",
  description:
    "Linked members who would gain or lose a role, against the roles they hold now (as the sync granted them). Nothing is saved.",
  auth: "admin-session",
  requires: { permission: "discord", doing: "preview Discord rules" },
  body: { kind: "json", schema: rulesBody, example: [{ roleId: EXAMPLE_ROLE, minStaked: 3 }] },
  responses: {
    200: {
      description: "The gains and losses.",
      schema: z.object({ gain: z.array(change), lose: z.array(change) }).meta({ id: "DiscordPreview" }),
      example: { gain: [{ address: EXAMPLE_ADDRESS, roleId: EXAMPLE_ROLE, reason: "has 5 staked" }], lose: [] },
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
  requires: { permission: "read", doing: "read the Discord status" },
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
export type DiscordLinkedAccount = ClientAnswer<typeof getDiscordAccount>;
export type PendingDiscordLink = ClientAnswer<typeof getPendingLink>;

// Slash commands (issue 37) ----------------------------------------------------------------------------------

const snowflake = z.string().regex(/^\d{17,20}$/, "must be a Discord id (17-20 digits)");
const interactionUser = z.looseObject({ id: snowflake, username: z.string().max(100).optional() });

export const interactionOptionSchema = z.looseObject({
  name: z.string().max(100),
  type: z.number().int(),
  value: z.union([z.string().max(6000), z.number(), z.boolean()]).optional(),
});

export const interactionSchema = z
  .looseObject({
    id: snowflake.meta({ description: "The interaction's id: answered once." }),
    application_id: snowflake,
    type: z
      .number()
      .int()
      .min(1)
      .max(5)
      .meta({ description: "1 PING, 2 APPLICATION_COMMAND, 3 MESSAGE_COMPONENT, 4 APPLICATION_COMMAND_AUTOCOMPLETE, 5 MODAL_SUBMIT." }),
    token: z.string().min(1).max(1000).meta({ description: "Edits the deferred answer for 15 minutes (PATCH …/messages/@original)." }),
    guild_id: snowflake.optional(),
    data: z
      .looseObject({
        id: snowflake.optional(),
        name: z.string().max(100).optional().meta({ description: "The command (a component's or a modal's data has none)." }),
        type: z.number().int().optional(),
        options: z.array(interactionOptionSchema).max(25).optional(),
      })
      .optional(),
    member: z.looseObject({ user: interactionUser }).optional().meta({ description: "The caller, in a server." }),
    user: interactionUser.optional().meta({ description: "The caller, in a DM." }),
  })
  .meta({
    id: "DiscordInteraction",
    description: "What Discord POSTs (discord-api-types APIInteraction); fields not named here are ignored.",
  });

// Within Discord's limits (title 256, description 4,096, 25 fields of 256 and 1,024, footer 2,048, 6,000 in all),
// counted in code points as Discord counts them (app/domain/discord-commands.ts fitEmbed).
const embedSchema = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  url: z.string().optional().meta({ description: "The site's page the answer is about." }),
  color: z.number().int().optional(),
  fields: z.array(z.object({ name: z.string(), value: z.string(), inline: z.boolean().optional() })).optional(),
  footer: z.object({ text: z.string() }).optional(),
});

export const commandMessageSchema = z
  .object({
    embeds: z.array(embedSchema).max(10).optional(),
    components: z.array(z.unknown()).max(5).optional().meta({ description: "Link buttons (style 5) in one action row." }),
    flags: z.number().int().optional().meta({ description: "64 (ephemeral): only the caller sees it." }),
    allowed_mentions: z
      .object({ parse: z.array(z.string()).max(0) })
      .optional()
      .meta({ description: "Always `{ parse: [] }`." }),
    choices: z.array(z.unknown()).optional().meta({ description: "Autocomplete answers (type 8): none offered." }),
  })
  .meta({ id: "DiscordMessage" });

export const interactionResponseSchema = z
  .object({
    type: z
      .union([z.literal(1), z.literal(4), z.literal(5), z.literal(8)])
      .meta({ description: "1 PONG, 4 a message, 5 deferred (edited in later through the interaction's webhook), 8 autocomplete." }),
    data: commandMessageSchema.optional(),
  })
  .meta({ id: "DiscordInteractionResponse" });

const EXAMPLE_INTERACTION = {
  id: "1300000000000000900",
  application_id: EXAMPLE_USER,
  type: 2,
  token: "aW50ZXJhY3Rpb246MTMwMDAwMDAwMDAwMDAwMDkwMA",
  guild_id: "1187000000000000000",
  data: { id: "1300000000000000800", name: "points", type: 1 },
  member: { user: { id: "1187654321098765433", username: "ghostly" } },
};

export const discordInteraction = defineRoute({
  operationId: "discordInteraction",
  method: "POST",
  path: "/api/discord/interactions",
  tag: TAG,
  summary: "Discord delivers a slash command (the Interactions Endpoint URL)",
  description:
    "Set as the application's Interactions Endpoint URL (docs/discord.md). The signature is checked over the raw body before anything " +
    'else; a PING is answered `{"type":1}`. Commands: /points [wallet], /stake, /giveaways, /leaderboard, /verify giveaway, /link. ' +
    "An answer not ready in time (DISCORD_DEFER_AFTER_MS, default 400 ms) is deferred (type 5) and edited in through " +
    "PATCH /webhooks/{application_id}/{token}/messages/@original. Bad input (an unknown command or option, a wallet that is not a " +
    "Dogecoin address, a giveaway that does not exist) is answered with an ephemeral message saying what was wrong. Answers 404 " +
    "without DISCORD_PUBLIC_KEY. No Origin check: the signature is the authentication.",
  auth: "discord-signature",
  rateLimit: "interactions",
  body: { kind: "json", schema: interactionSchema, example: EXAMPLE_INTERACTION },
  responses: {
    200: {
      description: "The interaction's answer.",
      schema: interactionResponseSchema,
      example: {
        type: 4,
        data: {
          embeds: [
            {
              title: "Your Spook Points",
              url: "https://spooks.example/rewards/history",
              description: "**1,234** Spook Points (exactly 1,234.50)",
              color: 0x8b5cf6,
            },
          ],
          flags: 64,
          allowed_mentions: { parse: [] },
        },
      },
    },
    404: errorAnswer("Slash commands are not configured (DISCORD_PUBLIC_KEY unset).", "Not found"),
    409: errorAnswer("This interaction id was answered already: each is answered once.", "This interaction was answered already"),
  },
});

const commandOptionView = z.object({
  name: z.string(),
  description: z.string(),
  type: z.number().int().meta({ description: "3 text, 4 whole number." }),
  required: z.boolean(),
});

export const discordCommandsSchema = z
  .object({
    enabled: z
      .boolean()
      .meta({ description: "Whether DISCORD_PUBLIC_KEY is set: Discord's deliveries are answered and commands registered." }),
    endpointUrl: z.string().meta({ description: "The Interactions Endpoint URL to set in the developer portal." }),
    commands: z.array(z.object({ name: z.string(), description: z.string(), options: z.array(commandOptionView) })),
  })
  .meta({ id: "DiscordCommands" });

export const getDiscordCommands = defineRoute({
  operationId: "getDiscordCommands",
  method: "GET",
  path: "/api/admin/discord/commands",
  tag: ADMIN_TAG,
  summary: "The slash commands, and whether Discord's deliveries are answered",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the Discord commands" },
  responses: {
    200: {
      description: "The commands registered with Discord (at start and by `spooks-admin discord commands sync`).",
      schema: discordCommandsSchema,
      example: {
        enabled: true,
        endpointUrl: "https://spooks.example/api/discord/interactions",
        commands: [
          {
            name: "points",
            description: "Your Spook Points: balance, daily rate with boosts, the hour under way, rank",
            options: [
              {
                name: "wallet",
                description: "Another wallet's Dogecoin address (default: the wallet linked to you)",
                type: 3,
                required: false,
              },
            ],
          },
        ],
      },
    },
    404: OFF,
  },
});

export const testCommandBody = z
  .object({
    command: z.string({ error: "command is required" }).trim().min(1, "command is required").max(32, "command is at most 32 characters"),
    options: z
      .record(z.string().max(32), z.union([z.string().max(200), z.number()]), { error: "options must be an object of names and values" })
      .refine((options) => Object.keys(options).length <= 25, "At most 25 options")
      .default({})
      .meta({ description: 'The command\'s options by name, e.g. `{ "wallet": "D…" }` or `{ "giveaway": 7 }`.' }),
    asAddress: addressSchema
      .nullable()
      .meta({ description: "Send it as the Discord member linked to this wallet; null: as a member with no linked wallet." }),
  })
  .meta({ id: "DiscordTestCommand" });

export const testDiscordCommand = defineRoute({
  operationId: "testDiscordCommand",
  method: "POST",
  path: "/api/admin/discord/commands/test",
  tag: ADMIN_TAG,
  summary: "Run a slash command as a test member, and see what they would see",
  description:
    "Runs the command through the code that answers Discord's deliveries (without Discord's signature, the once-only check or " +
    "deferral), as the member linked to `asAddress` or as a member with no linked wallet. Nothing is sent to Discord.",
  auth: "admin-session",
  requires: { permission: "read", doing: "try a Discord command" },
  body: { kind: "json", schema: testCommandBody, example: { command: "points", options: {}, asAddress: EXAMPLE_ADDRESS } },
  responses: {
    200: {
      description: "The answer holders would see.",
      schema: z
        .object({
          ephemeral: z.boolean().meta({ description: "Only the caller would see it." }),
          elapsedMs: z.number().meta({ description: "How long answering took here." }),
          wouldDefer: z.boolean().meta({ description: "Slower than DISCORD_DEFER_AFTER_MS: Discord would first show 'thinking…'." }),
          message: commandMessageSchema,
        })
        .meta({ id: "DiscordTestCommandAnswer" }),
      example: {
        ephemeral: true,
        elapsedMs: 12.5,
        wouldDefer: false,
        message: {
          embeds: [{ title: "Your Spook Points", description: "**1,234** Spook Points (exactly 1,234.50)" }],
          flags: 64,
          allowed_mentions: { parse: [] },
        },
      },
    },
    400: errorAnswer(
      "`asAddress` is not linked to a Discord account, or the body breaks its rule.",
      "That wallet is not linked to a Discord account",
    ),
    404: OFF,
  },
});

export type DiscordCommands = ClientAnswer<typeof getDiscordCommands>;
export type DiscordTestCommandAnswer = ClientAnswer<typeof testDiscordCommand>;
export type DiscordCommandMessage = z.output<typeof commandMessageSchema>;
