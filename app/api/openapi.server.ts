/**
 * The OpenAPI 3.1 document of /api, generated from the contract (API_ROUTES, answersOf) by zod-openapi
 * from zod 4's own JSON Schema output: answers are described by their wire (output) side, request bodies
 * and parameters by their input side. Nothing here is written by hand but the prose: served at
 * GET /api/openapi.json, rendered at /api/docs, validated in CI (npm run openapi:check) and read by the
 * API tests' answer checks (tests/api/answer-checker.ts).
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from "zod-openapi";
import packageJson from "../../package.json" with { type: "json" };
import { loadConfig, type Config } from "../utils/env.server.ts";
import { API_ROUTES } from "./index.ts";
import { answersOf, type AnswerSpec, type RateLimit, type RouteContract } from "./kit.ts";
import { isSignedMessageName, SIGNED_MESSAGE_NAMES, SIGNED_MESSAGES, type SignedMessageName } from "./messages.ts";
import { roleRefusal, rolesWith } from "../domain/team.ts";

export type RateLimits = Config["rateLimits"];

/** The limits when RATE_LIMIT_* are unset (the environment schema's defaults). */
export const DEFAULT_RATE_LIMITS: RateLimits = loadConfig({}).rateLimits;

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** The security schemes of the admin's session cookie: `__Host-` over https, plain over http. */
const ADMIN_SESSION = {
  adminSession: {
    type: "apiKey",
    in: "cookie",
    name: "__Host-spooks_session",
    description: "The admin's session cookie over https, set by POST /api/auth/session (HttpOnly, Secure, SameSite=Strict).",
  },
  adminSessionHttp: {
    type: "apiKey",
    in: "cookie",
    name: "spooks_session",
    description: "The same cookie on a site served over plain http (development).",
  },
} as const;

const RATE_LIMIT_SETTINGS: Record<RateLimit, { setting: string; perMinute: (limits: RateLimits) => number; counts: string }> = {
  signIn: {
    setting: "RATE_LIMIT_SIGNIN_PER_MIN",
    perMinute: (limits) => limits.signInPerMin,
    counts: "GET /api/auth/challenge and the changes of /api/auth/session, together",
  },
  signed: {
    setting: "RATE_LIMIT_SIGNED_PER_MIN",
    perMinute: (limits) => limits.signedPerMin,
    counts: "every signed action (stake, unstake, bulk, giveaway entry, vote), together",
  },
  email: {
    setting: "RATE_LIMIT_EMAIL_PER_MIN",
    perMinute: (limits) => limits.emailPerMin,
    counts: "email subscriptions (each may mail a confirmation)",
  },
  content: {
    setting: "RATE_LIMIT_CONTENT_PER_MIN",
    perMinute: (limits) => limits.contentPerMin,
    counts: "item pictures",
  },
  interactions: {
    setting: "RATE_LIMIT_INTERACTIONS_PER_MIN",
    perMinute: (limits) => limits.interactionsPerMin,
    counts: "Discord's interaction deliveries (they come from Discord's own addresses)",
  },
};

function rateLimitLine(kind: RateLimit, limits: RateLimits): string {
  const { setting, perMinute, counts } = RATE_LIMIT_SETTINGS[kind];
  const limit = perMinute(limits);
  return limit > 0
    ? `**Rate limit:** ${limit} requests per minute per client IP address, counting ${counts} (${setting}); beyond it 429 with Retry-After.`
    : `**Rate limit:** none on this server (${setting}=0).`;
}

const SIGNED_PROOF = "No cookie or header: the body's `address`, `signature` and `message` are the proof.";

const codeBlock = (text: string) => ["```", text, "```"].join("\n");

function signedMessageBlock(name: SignedMessageName): string {
  const format = SIGNED_MESSAGES[name];
  return [
    `**Auth: signed message \`${name}\`.** ${SIGNED_PROOF} \`message\` must be exactly this text (see *Signed messages* in the introduction):`,
    codeBlock(format.template),
    "For example:",
    codeBlock(format.example),
  ].join("\n\n");
}

const AUTH_LINES: Record<RouteContract["auth"], string> = {
  none: "**Auth:** none.",
  signature: `**Auth: signed message.** ${SIGNED_PROOF}`,
  "admin-session": "**Auth: admin session** (the cookie from POST /api/auth/session); a change must also come from this site (Origin).",
  "discord-signature":
    "**Auth: Discord's signature.** `X-Signature-Ed25519` (hex) over `X-Signature-Timestamp` (Unix seconds) followed by the raw body, " +
    "with the application's public key (DISCORD_PUBLIC_KEY); no cookie, and no Origin check (Discord sends none).",
};

/** Which team roles may call an admin route (the contract's `requires`), and, for the approval, what the member signs. */
function rolesLine(route: RouteContract): string | undefined {
  if (route.auth !== "admin-session" || !route.requires) return undefined;
  const line = `**Roles:** ${rolesWith(route.requires.permission).join(", ")} (\`${route.requires.permission}\`); any other member gets 403 "${roleRefusal("viewer", route.requires.doing)}" (naming its role).`;
  if (!isSignedMessageName(route.signedMessage)) return line;
  const format = SIGNED_MESSAGES[route.signedMessage];
  return [
    line,
    `Besides the session, \`message\` must be exactly this text, signed by the signed-in member's wallet (\`${route.signedMessage}\`):`,
    codeBlock(format.template),
  ].join("\n\n");
}

function operationDescription(route: RouteContract, limits: RateLimits): string {
  const auth =
    route.auth === "signature" && isSignedMessageName(route.signedMessage)
      ? signedMessageBlock(route.signedMessage)
      : AUTH_LINES[route.auth];
  return [route.description, auth, rolesLine(route), route.rateLimit ? rateLimitLine(route.rateLimit, limits) : undefined]
    .filter(Boolean)
    .join("\n\n");
}

function responseOf(answer: AnswerSpec): ZodOpenApiResponseObject {
  const headers = Object.fromEntries(
    Object.entries(answer.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" as const } }]),
  );
  return {
    description: answer.description,
    ...(answer.headers ? { headers } : {}),
    content: answer.mediaType
      ? { [answer.mediaType]: { schema: answer.schema, ...(answer.example === undefined ? {} : { example: answer.example }) } }
      : Object.fromEntries(
          Object.entries({ "application/json": answer, ...answer.alternatives }).map(([type, { schema, example }]) => [
            type,
            { schema, ...(example === undefined ? {} : { example }) },
          ]),
        ),
  };
}

function operationOf(route: RouteContract, limits: RateLimits): ZodOpenApiOperationObject {
  const responses = Object.fromEntries(Object.entries(answersOf(route)).map(([status, answer]) => [status, responseOf(answer)]));
  const mediaType = route.body?.kind === "multipart" ? "multipart/form-data" : "application/json";
  const limit = route.rateLimit;
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: operationDescription(route, limits),
    security: route.auth === "admin-session" ? [{ adminSession: [] }, { adminSessionHttp: [] }] : [],
    requestParams: { ...(route.params ? { path: route.params } : {}), ...(route.query ? { query: route.query } : {}) },
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              [mediaType]: { schema: route.body.schema, ...(route.body.example === undefined ? {} : { example: route.body.example }) },
            },
          },
        }
      : {}),
    responses,
    "x-auth": route.auth,
    ...(route.requires ? { "x-roles": rolesWith(route.requires.permission), "x-permission": route.requires.permission } : {}),
    ...(route.signedMessage ? { "x-signed-message": route.signedMessage } : {}),
    ...(limit
      ? {
          "x-rate-limit": {
            limit: RATE_LIMIT_SETTINGS[limit].perMinute(limits),
            windowSeconds: 60,
            per: "client IP address",
            setting: RATE_LIMIT_SETTINGS[limit].setting,
          },
        }
      : {}),
  };
}

function pathsOf(routes: readonly RouteContract[], limits: RateLimits): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete"] = operationOf(route, limits);
  }
  return paths;
}

function signedMessagesSection(): string {
  return SIGNED_MESSAGE_NAMES.map((name) => {
    const format = SIGNED_MESSAGES[name];
    const placeholders = Object.entries(format.placeholders).map(([placeholder, meaning]) => `- \`{${placeholder}}\`: ${meaning}`);
    return [
      `### \`${name}\``,
      format.purpose,
      codeBlock(format.template),
      placeholders.join("\n"),
      "Example:",
      codeBlock(format.example),
    ].join("\n\n");
  }).join("\n\n");
}

/**
 * The document's introduction (markdown). Renderers such as Swagger UI turn every line break into a
 * <br>, so each paragraph and list item is one line, written here in parts.
 */
function introduction(limits: RateLimits): string {
  const line = (...parts: string[]) => parts.join(" ");
  return [
    line(
      "The JSON API behind the Spooks site: holdings and rewards, staking, giveaways, governance and the admin's tools.",
      "Every answer is JSON; every request body is JSON unless a route says otherwise (the image upload is multipart).",
    ),
    "## Auth",
    "Each route says which it needs (`x-auth` on every operation):",
    [
      "- **none**: public reads.",
      line(
        "- **signed message**: the holder proves the action by signing its exact text with the wallet (MyDoge's Bitcoin-style signed message).",
        "There is no session, cookie or header: the body carries `address`, `signature` (base64) and `message`, and the message names",
        "exactly what the call does (its format is the route's `x-signed-message`, listed under *Signed messages* below).",
        "Its timestamp must be within 10 minutes of server time, and each signature is accepted once: a replay is 401.",
      ),
      line(
        "- **admin session**: the admin signs in once (GET /api/auth/challenge, sign the `sign-in` message, POST /api/auth/session) and then",
        "sends the session cookie it sets (`__Host-spooks_session` over https, `spooks_session` over plain http; HttpOnly, SameSite=Strict).",
        "A change (any method but GET) must also come from this site: an `Origin` (or, without one, a `Referer`) naming the site, else 403;",
        "and a body of the route's type (`application/json`, or `multipart/form-data` for the upload), else 415.",
        "No session is 401; a session whose address is not on the admin team now is 403.",
      ),
      line(
        "- **the admin team**: ADMIN_ADDRESS is the owner, who may add members as admin, moderator or viewer; each",
        "signs in with their own wallet. Every admin operation names the roles that may call it (`x-roles`, and its description);",
        'another member gets 403 naming its role ("A moderator cannot add points"). With no member added the owner alone is the admin.',
        'Where the owner\'s approval policy covers a change, it answers 202 `{ approvalId, status: "pending" }` and changes nothing until',
        "a different member approves it with a wallet signature (POST /api/admin/approvals/{id}/approve).",
      ),
      line(
        "- **Discord's signature**: POST /api/discord/interactions only, called by Discord with each slash command:",
        "`X-Signature-Ed25519` over `X-Signature-Timestamp` + the raw body, checked before anything else (docs/discord.md).",
      ),
    ].join("\n"),
    "## Errors",
    line(
      'Every 4xx and 5xx answer is `{ "message": "…" }`, a sentence a person can act on. Each operation lists the statuses it can give.',
      "Besides those: a method a path does not list answers **405** with an `Allow` header naming the ones it does, and a path under /api",
      'that no route claims answers **404** `{ "message": "Not found" }`. A 503 (the database is unreachable) carries `Retry-After`;',
      "a 500 is logged on the server.",
    ),
    "## Caching",
    line(
      "Answers carry `Cache-Control: no-store`. The site's own client adds `_t={milliseconds}` to every GET as a cache-buster;",
      "the server ignores it, as it ignores any query parameter a route does not list.",
    ),
    "## Rate limits",
    "Per client IP address, in fixed one-minute windows, checked before the route runs (nothing changes when refused):",
    [
      `- sign-in (GET /api/auth/challenge, POST and DELETE /api/auth/session): ${describeLimit(limits.signInPerMin)} (RATE_LIMIT_SIGNIN_PER_MIN, default 30);`,
      line(
        "- signed actions (stake, unstake, their bulk forms, giveaway entry, vote):",
        `${describeLimit(limits.signedPerMin)} (RATE_LIMIT_SIGNED_PER_MIN, default 300);`,
      ),
      line(
        "- email subscriptions (POST /api/notifications/email):",
        `${describeLimit(limits.emailPerMin)} (RATE_LIMIT_EMAIL_PER_MIN, default 5), besides each mailbox's own limit;`,
      ),
      line(
        "- starting a Discord link (the page GET /discord/link):",
        `${describeLimit(limits.discordLinkPerMin)} (RATE_LIMIT_DISCORD_LINK_PER_MIN, default 10);`,
      ),
      `- item pictures (GET /content/{inscriptionId}): ${describeLimit(limits.contentPerMin)} (RATE_LIMIT_CONTENT_PER_MIN, default 600);`,
      `- Discord's slash commands (POST /api/discord/interactions): ${describeLimit(limits.interactionsPerMin)} (RATE_LIMIT_INTERACTIONS_PER_MIN, default 1200);`,
      line(
        "- everything else (pages and every other route here) but the probes /api/live, /api/ready and /api/health:",
        `${describeLimit(limits.readsPerMin)} (RATE_LIMIT_READS_PER_MIN, default 600).`,
      ),
    ].join("\n"),
    line(
      "A request counts against the route it reaches, however its path is spelled (`/api/%73take` is `/api/stake`).",
      "Beyond a limit: 429 with `Retry-After` and the IETF draft `RateLimit` header. Every web server on one database shares one count.",
      "Rate-limited operations carry `x-rate-limit`.",
    ),
    "## Signed messages",
    "The texts a wallet signs. `{placeholders}` are filled in; everything else is literal, line breaks included.",
    signedMessagesSection(),
  ].join("\n\n");
}

function describeLimit(perMinute: number): string {
  return perMinute > 0 ? `${perMinute} requests per minute on this server` : "no limit on this server";
}

/** Builds the document for these rate limits (the served one states the server's configured values). */
export function buildOpenApiDocument(limits: RateLimits = DEFAULT_RATE_LIMITS): OpenApiDocument {
  const tags = [...new Set(API_ROUTES.map((route) => route.tag))].map((name) => ({ name }));
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Spooks API",
      version: packageJson.version,
      description: introduction(limits),
    },
    servers: [{ url: "/", description: "This site" }],
    tags,
    security: [],
    paths: pathsOf(API_ROUTES, limits),
    components: { securitySchemes: ADMIN_SESSION },
    "x-signed-messages": SIGNED_MESSAGES,
  });
}

const built = new Map<string, OpenApiDocument>();

/** The document for `limits`, built once per process and kept. */
export function openApiDocument(limits: RateLimits = DEFAULT_RATE_LIMITS): OpenApiDocument {
  const key = `${limits.signInPerMin}/${limits.signedPerMin}/${limits.contentPerMin}/${limits.readsPerMin}`;
  let document = built.get(key);
  if (!document) {
    document = buildOpenApiDocument(limits);
    built.set(key, document);
  }
  return document;
}
