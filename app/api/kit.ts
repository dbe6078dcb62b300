/**
 * The building blocks of the /api contract: how a route is described (method, path, auth, rate limit,
 * input schemas, one answer schema per status) and the schemas every group shares. A route's contract is
 * the single source for its handler (input parsing, answer building: app/utils/api.server.ts `endpoint`),
 * the browser client's and the CLI's types, the OpenAPI document (app/api/openapi.server.ts) and the API
 * tests' answer checks. Plain zod only: the browser imports this module's types, never db/.
 */
import { z } from "zod";
import { isDogecoinAddress } from "../domain/address.ts";
import { isInscriptionId } from "../domain/collections.ts";
import { isRowId, MAX_ID } from "../domain/ids.ts";
import { can, MEMBER_ROLES, NOT_A_MEMBER, roleRefusal, rolesWith, type Requirement } from "../domain/team.ts";
import { MESSAGES } from "../domain/validation.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Who may call: anyone; a holder proving the action by signing its exact message (no session); the admin,
 * by the session cookie from sign-in (and, for changes, the same-site check); Discord, by its Ed25519
 * signature of the raw request (slash commands, issue 37).
 */
export type Auth = "none" | "signature" | "admin-session" | "discord-signature";

/** The per-IP limits of server/rate-limits.ts. */
export type RateLimit = "signIn" | "signed" | "email" | "content" | "interactions";

export type AnswerSpec = {
  description: string;
  /** The answer's media type when it is not JSON (an image). */
  mediaType?: string;
  schema: z.ZodType;
  /** A realistic answer, shown in the docs and checked against `schema` by the contract's own test. */
  example?: unknown;
  /** Response headers worth documenting (name → description). */
  headers?: Record<string, string>;
  /** Other media types this answer can come as (a query asks for them, e.g. `?format=csv`), with their body. */
  alternatives?: Record<string, { schema: z.ZodType; example?: unknown }>;
};

export type BodySpec = {
  kind: "json" | "multipart";
  schema: z.ZodType;
  example?: unknown;
};

export type RouteContract = {
  /** Stable name of the operation (OpenAPI operationId). */
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template: `/api/rewards/{address}` (or the one route outside /api, `/content/{inscriptionId}`). */
  path: `/api/${string}` | `/content/${string}`;
  /** The group the docs list it under. */
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  rateLimit?: RateLimit;
  /** For `auth: "signature"`: which signed message format (SIGNED_MESSAGES in app/api/messages.ts). */
  signedMessage?: string;
  /**
   * For `auth: "admin-session"`: the team permission the route needs and what a refusal says the role tried
   * ("A moderator cannot add points"). `endpoint` enforces it from the session's role; every admin route names one.
   */
  requires?: Requirement;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: BodySpec;
  /** The statuses particular to this route (its success, its own 400/404/409…), each with its body. */
  responses: Partial<Record<number, AnswerSpec>>;
  // Statuses implied by auth, body and rate limit (401, 403, 413, 415, 429, 500, 503) are added by answersOf.
};

/** Keeps the literal types of a route's contract (what `endpoint` and the client read). */
export function defineRoute<const R extends RouteContract>(route: R): R {
  return route;
}

/** The body schema of the answer `status` of route `R`. */
export type AnswerSchema<R extends RouteContract, S extends number> = R["responses"][S] extends { schema: infer T extends z.ZodType }
  ? T
  : never;

/** The success status a handler's plain return value is answered with: 201 where the route creates, else 200. */
export type SuccessStatus<R extends RouteContract> = 201 extends keyof R["responses"] ? 201 : 200;

/** What the server hands to the answer schema (Dates as Date objects). */
export type ServerAnswer<R extends RouteContract, S extends number = SuccessStatus<R>> = z.input<AnswerSchema<R, S>>;

/** What the client receives over JSON (Dates as ISO strings). */
export type ClientAnswer<R extends RouteContract, S extends number = SuccessStatus<R>> = z.output<AnswerSchema<R, S>>;

/** A request body as the client sends it. */
export type RequestBody<R extends RouteContract> = R["body"] extends { schema: infer T extends z.ZodType } ? z.input<T> : never;

// Shared schemas -----------------------------------------------------------------------------------

/** Every error answer: a sentence a person can act on. */
export const errorBody = z
  .object({ message: z.string().meta({ description: "What went wrong, in words for a person." }) })
  .meta({ id: "Error", description: "Every 4xx and 5xx answer." });

/**
 * A moment in time: a Date on the server, an ISO 8601 string (UTC, milliseconds) on the wire. Parsing an
 * answer turns the server's Date into the wire string, so what the schema documents is what is sent.
 */
export const timestamp = z
  .codec(z.date(), z.iso.datetime(), {
    decode: (date) => date.toISOString(),
    encode: (text) => new Date(text),
  })
  .meta({ description: "ISO 8601 date and time, UTC.", examples: ["2026-10-31T18:00:00.000Z"] });

/**
 * An input issue may carry the HTTP status it answers (`params.status`): a path id no row can have is
 * 404, not 400. `parseOrRefuse` (db/queries/input.server.ts) answers it.
 */
export function notFoundIssue(message: string) {
  return { message, params: { status: 404 } };
}

export const addressSchema = z
  .string({ error: MESSAGES.invalidAddress })
  .trim()
  .refine(isDogecoinAddress, MESSAGES.invalidAddress)
  .meta({ description: "A Dogecoin mainnet P2PKH address.", examples: ["DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L"] });

export const addressParams = z.object({ address: addressSchema });

/** A row id in the path (`/api/proposals/{id}`): anything that cannot name a row is 404 `{what} not found`. */
export function rowIdParam(what: string) {
  return z
    .string()
    .refine((value) => /^[1-9]\d{0,9}$/.test(value) && isRowId(Number(value)), notFoundIssue(`${what} not found`))
    .transform(Number)
    .meta({ description: `The ${what.toLowerCase()}'s id: a whole number from 1.`, examples: ["1"] });
}

export const inscriptionIdSchema = z
  .string({ error: "inscriptionId must be a string" })
  .trim()
  .toLowerCase()
  .refine(isInscriptionId, "Invalid inscription id")
  .meta({
    description: "An inscription id: the reveal transaction's id, `i`, and the inscription's index in it.",
    examples: [`${"a1".repeat(32)}i0`],
  });

/** A positive whole id in a JSON body. */
export function positiveIdSchema(what: string) {
  return z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`)
    .max(MAX_ID, `${what} is too large`);
}

/** The three fields of every holder-signed request (the message formats: app/api/messages.ts). */
export const signedFields = {
  address: addressSchema,
  signature: z
    .string({ error: "signature is required" })
    .min(1, "signature is required")
    .max(200, "signature is too long")
    .meta({ description: "The wallet's base64 signature of `message` (Bitcoin-style signed message, Dogecoin magic)." }),
  message: z
    .string({ error: "message is required" })
    .min(1, "message is required")
    .max(100_000, "message is too long")
    .meta({ description: "The exact text the wallet signed; its format is the route's signed message." }),
};

export const successTrue = z.literal(true);

/** Where a change is in the public log (docs/transparency.md): the index of its first entry; null until known. */
export const logIndexField = z
  .number()
  .int()
  .min(0)
  .nullable()
  .optional()
  .meta({ description: "The index of this change's first entry in the public log (/log/): check it with GET /api/log/proof/{index}." });

/** PostgreSQL text cannot hold U+0000: free text is refused up front with the server's own words. */
export const NUL_MESSAGE = "Text must not contain NUL characters";
export const hasNoNul = (text: string) => !text.includes("\u0000");

// Answers every route of a kind can give --------------------------------------------------------------

/** An error answer of a route's contract: when it is given, and an example of its message. */
export const errorAnswer = (description: string, message: string): AnswerSpec => ({ description, schema: errorBody, example: { message } });
const error = errorAnswer;

/** 400 for an address in the path that is not a Dogecoin address. */
export const badAddressAnswer = errorAnswer("The address is not a Dogecoin address.", MESSAGES.invalidAddress);

/**
 * A row named by its id in the path (`/api/giveaways/{id}`): the path's parameters and the 404 answered when no
 * row has the id (`what` as in rowIdParam: "Giveaway").
 */
export function rowById(what: string): { params: z.ZodObject<{ id: ReturnType<typeof rowIdParam> }>; notFound: AnswerSpec } {
  return {
    params: z.object({ id: rowIdParam(what) }),
    notFound: errorAnswer(`No ${what.toLowerCase()} has this id.`, `${what} not found`),
  };
}

/** Every route: the database down (503, with Retry-After) or something unexpected (500, logged). */
const ALWAYS: Record<number, AnswerSpec> = {
  500: error("Something unexpected failed on the server (it is logged); nothing was changed.", "Internal server error"),
  503: {
    ...error(
      "The database is unreachable; try again after Retry-After seconds.",
      "The database is unavailable right now; try again in a few seconds",
    ),
    headers: { "Retry-After": "Seconds to wait before trying again." },
  },
};

const JSON_BODY: Record<number, AnswerSpec> = {
  400: error("The body is not JSON, or a field breaks its rule (the message names it).", "Malformed JSON body"),
  413: error("The body is larger than 1 MB.", "Request body is larger than 1024 KB"),
};

const PARAMETERS: Record<number, AnswerSpec> = {
  400: error("A path or query parameter breaks its rule (the message says which).", "Invalid Dogecoin address"),
};

/** An admin route's 401 and 403; the 403's example is the refusal of the first role the route's permission leaves out. */
function adminAnswers(route: RouteContract): Record<number, AnswerSpec> {
  const refused = route.requires ? MEMBER_ROLES.find((role) => !can(role, route.requires!.permission)) : undefined;
  const roles = route.requires ? rolesWith(route.requires.permission).join(", ") : "every member";
  return {
    401: error(
      "No admin session (or it ended: signed out, expired, or its member removed from the team): sign in first (POST /api/auth/session).",
      "Sign in as the admin first",
    ),
    403: error(
      `The session's address is not on the admin team, its role may not do this (allowed: ${roles}; the message names the role), ` +
        "or the change comes from another site.",
      refused && route.requires ? roleRefusal(refused, route.requires.doing) : NOT_A_MEMBER,
    ),
  };
}

const ADMIN_CHANGE: Record<number, AnswerSpec> = {
  415: error(
    "A change must send its body as the route's content type (JSON unless it says otherwise).",
    "Send the body as application/json",
  ),
};

const SIGNED: Record<number, AnswerSpec> = {
  401: error(
    "The signature is not the address's, the message is not this action's, is older than 10 minutes, or was used before.",
    "The signed message has expired: its timestamp is more than 10 minutes from server time",
  ),
};

const DISCORD_SIGNED: Record<number, AnswerSpec> = {
  401: error(
    "X-Signature-Ed25519 is missing or is not the Discord application's signature of X-Signature-Timestamp followed by the raw body, " +
      "or the timestamp is more than 5 minutes from server time. Nothing else is looked at.",
    "Invalid request signature",
  ),
};

const LIMITED: Record<number, AnswerSpec> = {
  429: {
    ...error(
      "Too many requests of this kind from your IP address in the current minute.",
      "Too many signed requests from your address: at most 300 per 60 s. Try again in 42 s.",
    ),
    headers: { "Retry-After": "Seconds until the window resets.", RateLimit: "The IETF draft-8 rate limit header." },
  },
};

/** The probes load balancers call: the one kind of route no rate limit counts (server/rate-limits.ts). */
export const PROBE_PATHS: readonly string[] = ["/api/live", "/api/ready", "/api/health"];

/**
 * Every answer `route` can give: the ones its kind implies (auth, JSON body, rate limit, 500/503) and its
 * own, which win where both name a status. The docs and the API tests' answer checks both read this.
 */
export function answersOf(route: RouteContract): Record<number, AnswerSpec> {
  const isChange = route.method !== "GET";
  return {
    ...ALWAYS,
    ...(route.params || route.query ? PARAMETERS : {}),
    ...(route.body?.kind === "json" ? JSON_BODY : {}),
    ...(route.auth === "admin-session" ? adminAnswers(route) : {}),
    ...(route.auth === "admin-session" && isChange ? ADMIN_CHANGE : {}),
    ...(route.auth === "signature" ? SIGNED : {}),
    ...(route.auth === "discord-signature" ? DISCORD_SIGNED : {}),
    // Besides their own limit (rateLimit), all but the probes count against the general reads limit.
    ...(PROBE_PATHS.includes(route.path) ? {} : LIMITED),
    ...(route.responses as Record<number, AnswerSpec>),
  };
}

// Second signatures (issue 35) ----------------------------------------------------------------------------

export const pendingApprovalSchema = z
  .object({
    approvalId: z.number().int().min(1).meta({ description: "The pending approval: GET /api/admin/approvals lists it." }),
    status: z.literal("pending"),
    summary: z.string().meta({ description: "The line the approver signs: `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}`." }),
    expiresAt: timestamp.meta({ description: "When it expires unapproved (24 hours after it was asked)." }),
  })
  .meta({ id: "PendingApproval" });

/**
 * The 202 of a route the owner's approval policy may cover: nothing changed; the request waits for a second
 * member's signature (POST /api/admin/approvals/{id}/approve), which applies it then.
 */
export const pendingApprovalAnswer: AnswerSpec = {
  description:
    "The owner's approval policy covers this request: nothing changed. It is kept as asked and applied when a different member with the " +
    "right to do it approves it with their wallet's signature (POST /api/admin/approvals/{id}/approve), within 24 hours.",
  schema: pendingApprovalSchema,
  example: {
    approvalId: 12,
    status: "pending",
    summary: "Clear the points of DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM",
    expiresAt: "2026-11-02T10:30:01.000Z",
  },
};
