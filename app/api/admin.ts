/**
 * The admin's points tools: the wallets list, adding and clearing points, and the ledger repairs. Every
 * change writes its ledger row(s) and an audit row in one transaction; the ledger is the truth.
 */
import { z } from "zod";
import {
  addPointsSchema,
  clearReasonSchema,
  DEFAULT_ADJUSTMENT_DESCRIPTION,
  DEFAULT_CLEAR_DESCRIPTION,
  MAX_POINTS,
  MESSAGES,
} from "../domain/validation.ts";
import { AUDIT_ACTOR_KINDS } from "../domain/audit.ts";
import {
  addressSchema,
  defineRoute,
  errorBody,
  hasNoNul,
  NUL_MESSAGE,
  successTrue,
  timestamp,
  type ClientAnswer,
  type RequestBody,
  pendingApprovalAnswer,
} from "./kit.ts";

const TAG = "Admin points";
const EXAMPLE_ADDRESS = "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM";

/** The most wallets GET /api/admin/users answers (db/queries/points.server.ts listUsers). */
const USERS_LIMIT = 1000;
const SEARCH_MAX = 100;

const badBody = (message: string) => ({
  description: "A field breaks its rule (the admin form's texts), or the body is not JSON.",
  schema: errorBody,
  example: { message },
});

// Answers ------------------------------------------------------------------------------------------

export const userRowSchema = z
  .object({
    address: z.string(),
    totalPoints: z.number().meta({ description: "The wallet's balance in points (2 decimals; negative after an over-correction)." }),
    stakedCount: z.number().int().min(0).meta({ description: "Items staked now." }),
    dailyRate: z
      .number()
      .meta({ description: "Points per day the staked items earn now, boosts included (GET /api/rewards's dailyRate)." }),
  })
  .meta({ id: "UserPoints" });

export const pointsAddedSchema = z.object({
  success: successTrue,
  address: z.string(),
  totalPoints: z.number().meta({ description: "The wallet's balance after the addition." }),
});

export const pointsClearedSchema = z.object({
  success: successTrue,
  address: z.string(),
  clearedPoints: z.number().meta({ description: "The balance removed (0 when it was already 0)." }),
});

export const pointsRecalculatedSchema = z.object({
  success: successTrue,
  addressesProcessed: z.number().int().min(0).meta({ description: "Wallets whose cached balance was rebuilt from the ledger." }),
});

export const negativeBalancesResetSchema = z.object({
  success: successTrue,
  adjustmentsApplied: z.number().int().min(0).meta({ description: "Negative balances brought to 0, one ledger row each." }),
});

// Inputs ---------------------------------------------------------------------------------------------

const usersQuery = z.object({
  search: z
    .string()
    .refine(hasNoNul, NUL_MESSAGE)
    .default("")
    .transform((text) => text.slice(0, SEARCH_MAX))
    .meta({
      description: `Only addresses containing this text, ignoring case (its first ${SEARCH_MAX} characters count).`,
      examples: ["DQgY"],
    }),
});

/** The admin form's rules (addPointsSchema, with its texts). */
export const addPointsBody = addPointsSchema.extend({
  address: addressSchema,
  amount: addPointsSchema.shape.amount.meta({
    description: `Points to add: more than 0, at most ${MAX_POINTS.toLocaleString("en-US")}, at most 2 decimals (a numeric string is read as its number).`,
  }),
  description: addPointsSchema.shape.description.meta({
    description: `The ledger row's description; "${DEFAULT_ADJUSTMENT_DESCRIPTION}" when absent or blank.`,
  }),
});

export const clearPointsBody = z.object({
  address: addressSchema,
  reason: clearReasonSchema.meta({
    description: `Why (optional, at most 500 characters): the ledger row's description (default "${DEFAULT_CLEAR_DESCRIPTION}") and the audit row's reason.`,
  }),
});

// Routes ---------------------------------------------------------------------------------------------

export const listUsers = defineRoute({
  operationId: "listUsers",
  method: "GET",
  path: "/api/admin/users",
  tag: TAG,
  summary: "Wallets with their points and staked count",
  description: `Wallets with a balance or an open stake, highest balance first, at most ${USERS_LIMIT}.`,
  auth: "admin-session",
  requires: { permission: "read", doing: "see the wallets" },
  query: usersQuery,
  responses: {
    200: {
      description: "The wallets, highest balance first.",
      schema: z.array(userRowSchema),
      example: [
        { address: EXAMPLE_ADDRESS, totalPoints: 1234.5, stakedCount: 4, dailyRate: 430 },
        { address: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", totalPoints: 20, stakedCount: 0, dailyRate: 0 },
      ],
    },
  },
});

export const addPermanentPoints = defineRoute({
  operationId: "addPoints",
  method: "POST",
  path: "/api/add-permanent-points",
  tag: TAG,
  summary: "Add points to a wallet",
  description: "One ledger row of kind admin_add. Audited.",
  auth: "admin-session",
  requires: { permission: "points", doing: "add points" },
  body: { kind: "json", schema: addPointsBody, example: { address: EXAMPLE_ADDRESS, amount: 150, description: "Halloween bonus" } },
  responses: {
    202: pendingApprovalAnswer,
    200: {
      description: "Added; the wallet's new balance.",
      schema: pointsAddedSchema,
      example: { success: true, address: EXAMPLE_ADDRESS, totalPoints: 1384.5 },
    },
    400: badBody(MESSAGES.positivePoints),
  },
});

export const clearPoints = defineRoute({
  operationId: "clearPoints",
  method: "POST",
  path: "/api/admin/clear-points",
  tag: TAG,
  summary: "Bring a wallet's balance to 0",
  description: "One ledger row of kind admin_clear for the whole balance (none when it is already 0). Audited.",
  auth: "admin-session",
  requires: { permission: "points", doing: "clear points" },
  body: {
    kind: "json",
    schema: clearPointsBody,
    example: { address: EXAMPLE_ADDRESS, reason: "Points farmed with a bug, reported in #support" },
  },
  responses: {
    202: pendingApprovalAnswer,
    200: {
      description: "Cleared; the points removed.",
      schema: pointsClearedSchema,
      example: { success: true, address: EXAMPLE_ADDRESS, clearedPoints: 1384.5 },
    },
    400: badBody(MESSAGES.invalidAddress),
  },
});

export const recalculatePoints = defineRoute({
  operationId: "recalculatePoints",
  method: "POST",
  path: "/api/admin/recalculate-points",
  tag: TAG,
  summary: "Rebuild every cached balance from the ledger",
  description:
    "The ledger is the truth: each wallet's cached balance is set to its ledger sum, with balances locked meanwhile. No body. Audited.",
  auth: "admin-session",
  requires: { permission: "points", doing: "recalculate points" },
  responses: {
    202: pendingApprovalAnswer,
    200: { description: "Rebuilt.", schema: pointsRecalculatedSchema, example: { success: true, addressesProcessed: 312 } },
  },
});

export const resetNegativeBalances = defineRoute({
  operationId: "resetNegativeBalances",
  method: "POST",
  path: "/api/admin/reset-negative-balances",
  tag: TAG,
  summary: "Bring every negative balance to 0",
  description: "One ledger row of kind negative_reset per negative balance. No body. Audited.",
  auth: "admin-session",
  requires: { permission: "points", doing: "reset negative balances" },
  responses: {
    202: pendingApprovalAnswer,
    200: { description: "Reset.", schema: negativeBalancesResetSchema, example: { success: true, adjustmentsApplied: 2 } },
  },
});

// The audit trail ------------------------------------------------------------------------------------

const AUDIT_PAGE_MAX = 200;

const auditEntrySchema = z
  .object({
    id: z.number().int().min(1),
    at: timestamp,
    actor: z.enum(AUDIT_ACTOR_KINDS).meta({ description: "Who acted: the web admin, the CLI operator, or the system (indexer, accrual)." }),
    actorAddress: z.string().nullable().meta({ description: "The admin's address, for `web`." }),
    action: z.string().meta({ description: "What was done, `family.verb` (points.add, giveaway.draw, stake.transferred…)." }),
    target: z
      .string()
      .nullable()
      .meta({ description: "What it was done to: a wallet, `giveaway:{id}`, `proposal:{id}`, an hour, a file." }),
    details: z.record(z.string(), z.unknown()).meta({ description: "The action's own figures (amounts, counts)." }),
    before: z.unknown().meta({ description: "What the change found (null for a creation)." }),
    after: z.unknown().meta({ description: "What the change left (null for a deletion)." }),
  })
  .meta({ id: "AuditEntry" });

const isoInstant = (name: string, description: string) =>
  z.iso
    .datetime({ offset: true, error: `${name} must be an ISO 8601 date and time` })
    .transform((text) => new Date(text))
    .optional()
    .meta({ description: `${description} (ISO 8601 date and time).`, examples: ["2026-11-01T00:00:00Z"] });

export const auditQuery = z.object({
  action: z
    .string()
    .max(100, "action is too long")
    .refine(hasNoNul, NUL_MESSAGE)
    .optional()
    .meta({ description: "Only this action (`points.add`), or every action of a family (`points`)." }),
  actor: z
    .string()
    .max(100, "actor is too long")
    .refine(hasNoNul, NUL_MESSAGE)
    .optional()
    .meta({ description: "Only `web`, `cli` or `system`, or the web admin's address." }),
  since: isoInstant("since", "Only changes at or after this"),
  until: isoInstant("until", "Only changes before this"),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "cursor must be the nextCursor of a previous page")
    .transform(Number)
    .optional()
    .meta({ description: "The previous page's `nextCursor`: the page of older changes." }),
  limit: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, `limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`)
    .transform(Number)
    .refine((limit) => limit <= AUDIT_PAGE_MAX, `limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`)
    .default(50)
    .meta({ description: `Changes per page, 1 to ${AUDIT_PAGE_MAX} (50 by default).` }),
});

export const listAudit = defineRoute({
  operationId: "listAudit",
  method: "GET",
  path: "/api/admin/audit",
  tag: TAG,
  summary: "The audit trail: every admin and system change, newest first",
  description:
    "Every admin change (web and CLI) and every system change to holders' standing (a stake ended by a transfer, an hour credited), " +
    "with who, when, what, and before → after. Append-only: the database refuses to change or remove a row. One page, newest first; " +
    "`nextCursor` asks for the next (older) page, null on the last.",
  auth: "admin-session",
  requires: { permission: "read", doing: "read the audit trail" },
  query: auditQuery,
  responses: {
    200: {
      description: "One page of changes, newest first.",
      schema: z.object({ entries: z.array(auditEntrySchema), nextCursor: z.number().int().min(1).nullable() }).meta({ id: "AuditPage" }),
      example: {
        entries: [
          {
            id: 812,
            at: "2026-11-02T10:30:01.000Z",
            actor: "web",
            actorAddress: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L",
            action: "points.add",
            target: EXAMPLE_ADDRESS,
            details: { points: 150, description: "Halloween bonus" },
            before: { points: 1234.5 },
            after: { points: 1384.5 },
          },
        ],
        nextCursor: 812,
      },
    },
  },
});

// Client types ---------------------------------------------------------------------------------------

export type UserPoints = ClientAnswer<typeof listUsers>[number];
export type AddPointsRequest = RequestBody<typeof addPermanentPoints>;
export type AddPointsResponse = ClientAnswer<typeof addPermanentPoints>;
export type ClearPointsResponse = ClientAnswer<typeof clearPoints>;
export type RecalculatePointsResponse = ClientAnswer<typeof recalculatePoints>;
export type ResetNegativeBalancesResponse = ClientAnswer<typeof resetNegativeBalances>;
export type AuditPage = ClientAnswer<typeof listAudit>;
export type AuditEntry = AuditPage["entries"][number];
