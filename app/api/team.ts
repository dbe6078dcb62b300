/**
 * The admin team (issue 35; docs/admin.md): members with roles, second-signature approvals, and the members'
 * sessions. ADMIN_ADDRESS is the owner: the only one who manages the team and the approval policy.
 */
import { z } from "zod";
import { APPROVAL_ACTIONS, APPROVAL_KINDS, APPROVAL_STATUSES, MAX_POINTS_ABOVE } from "../domain/approvals.ts";
import { ASSIGNABLE_ROLES, MEMBER_ROLES } from "../domain/team.ts";
import {
  addressSchema,
  defineRoute,
  errorAnswer,
  pendingApprovalAnswer,
  signedFields,
  successTrue,
  timestamp,
  type ClientAnswer,
  type RequestBody,
} from "./kit.ts";

const TAG = "Admin team";
const OWNER = "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L";
const MEMBER = "DQgYiZSiku7PNs3VhdMwJCTFfU9rcLKTzM";

const MANAGE_TEAM = { permission: "team", doing: "manage the team" } as const;

// The team ----------------------------------------------------------------------------------------------

export const teamMemberSchema = z
  .object({
    address: z.string(),
    role: z.enum(MEMBER_ROLES).meta({ description: "owner (ADMIN_ADDRESS), admin, moderator or viewer." }),
    addedBy: z.string().nullable().meta({ description: "Who added the member (an address, or `cli`); null for the owner." }),
    addedAt: timestamp.nullable().meta({ description: "When; null for the owner." }),
  })
  .meta({ id: "TeamMember" });

export const listTeam = defineRoute({
  operationId: "listTeam",
  method: "GET",
  path: "/api/admin/team",
  tag: TAG,
  summary: "The admin team: the owner, then each member with their role",
  description:
    "The owner (ADMIN_ADDRESS) first, then the members the owner added, oldest first. Roles: owner (everything), admin (everything but " +
    "the team and the approval policy), moderator (giveaways and proposals), viewer (reads every admin tab, changes nothing).",
  auth: "admin-session",
  requires: { permission: "read", doing: "see the team" },
  responses: {
    200: {
      description: "The team.",
      schema: z.array(teamMemberSchema),
      example: [
        { address: OWNER, role: "owner", addedBy: null, addedAt: null },
        { address: MEMBER, role: "moderator", addedBy: OWNER, addedAt: "2026-11-01T09:00:00.000Z" },
      ],
    },
  },
});

export const addTeamMemberBody = z.object({
  address: addressSchema,
  role: z
    .enum(ASSIGNABLE_ROLES, { error: `role must be one of ${ASSIGNABLE_ROLES.join(", ")}` })
    .meta({ description: "admin, moderator or viewer (there is one owner: ADMIN_ADDRESS)." }),
});

export const addTeamMember = defineRoute({
  operationId: "addTeamMember",
  method: "POST",
  path: "/api/admin/team",
  tag: TAG,
  summary: "Add a member (or give a member another role)",
  description:
    "Owner only. The member signs in with their own wallet from then on. Audited `team.add` (or `team.role`). Covered by the approval " +
    "policy's `team`: then an admin co-signs it.",
  auth: "admin-session",
  requires: MANAGE_TEAM,
  body: { kind: "json", schema: addTeamMemberBody, example: { address: MEMBER, role: "moderator" } },
  responses: {
    200: {
      description: "The member as stored.",
      schema: teamMemberSchema,
      example: { address: MEMBER, role: "moderator", addedBy: OWNER, addedAt: "2026-11-01T09:00:00.000Z" },
    },
    202: pendingApprovalAnswer,
    400: errorAnswer(
      "The address is not a Dogecoin address, the role is unknown, or the address is the owner's.",
      "role must be one of admin, moderator, viewer",
    ),
  },
});

export const removeTeamMember = defineRoute({
  operationId: "removeTeamMember",
  method: "DELETE",
  path: "/api/admin/team/{address}",
  tag: TAG,
  summary: "Remove a member; their sessions end at once",
  description:
    "Owner only. The member's sessions are revoked in the same transaction, and every admin request checks membership anyway: their next " +
    "request is refused. Audited `team.remove`. Covered by the approval policy's `team`.",
  auth: "admin-session",
  requires: MANAGE_TEAM,
  params: z.object({ address: addressSchema }),
  responses: {
    200: { description: "Removed.", schema: z.object({ success: successTrue }), example: { success: true } },
    202: pendingApprovalAnswer,
    400: errorAnswer(
      "The address is not a Dogecoin address, is the owner's, or is no member's.",
      "The owner (ADMIN_ADDRESS) cannot be removed from the team",
    ),
  },
});

// Approvals ---------------------------------------------------------------------------------------------

export const approvalPolicySchema = z
  .object({
    pointsAbove: z
      .number()
      .min(0)
      .nullable()
      .meta({ description: "Adding, or clearing a balance of, more than this many points needs a second signature; null: no threshold." }),
    actions: z.array(z.enum(APPROVAL_ACTIONS)).meta({ description: "The actions that always need a second signature." }),
  })
  .meta({ id: "ApprovalPolicy" });

export const approvalPolicyBody = z.object({
  pointsAbove: z
    .number({ error: "pointsAbove must be a number of points or null" })
    .min(0, "pointsAbove must be 0 or more")
    .max(MAX_POINTS_ABOVE, `pointsAbove must be at most ${MAX_POINTS_ABOVE.toLocaleString("en-US")}`)
    .multipleOf(0.01, "pointsAbove must have at most 2 decimals")
    .nullable(),
  actions: z
    .array(z.enum(APPROVAL_ACTIONS, { error: `actions must name ${APPROVAL_ACTIONS.join(", ")}` }), { error: "actions must be a list" })
    .max(APPROVAL_ACTIONS.length, "actions names an action more than once")
    .refine((actions) => new Set(actions).size === actions.length, "actions names an action more than once"),
});

export const getApprovalPolicy = defineRoute({
  operationId: "getApprovalPolicy",
  method: "GET",
  path: "/api/admin/approvals/policy",
  tag: TAG,
  summary: "The approval policy: what needs a second signature",
  description: "Off (`pointsAbove: null, actions: []`) until the owner sets it.",
  auth: "admin-session",
  requires: { permission: "read", doing: "see the approval policy" },
  responses: {
    200: {
      description: "The policy.",
      schema: approvalPolicySchema,
      example: { pointsAbove: 1000, actions: ["clear-points", "giveaway.delete"] },
    },
  },
});

export const setApprovalPolicy = defineRoute({
  operationId: "setApprovalPolicy",
  method: "PUT",
  path: "/api/admin/approvals/policy",
  tag: TAG,
  summary: "Set the approval policy",
  description:
    "Owner only. While a policy is in force, changing it is itself covered (202, co-signed by an admin): a stolen owner key cannot switch " +
    "the second signature off alone. Audited `approval.policy`.",
  auth: "admin-session",
  requires: { permission: "team", doing: "change the approval policy" },
  body: {
    kind: "json",
    schema: approvalPolicyBody,
    example: { pointsAbove: 1000, actions: ["clear-points", "giveaway.delete", "boosts"] },
  },
  responses: {
    200: {
      description: "The policy now.",
      schema: approvalPolicySchema,
      example: { pointsAbove: 1000, actions: ["clear-points", "giveaway.delete", "boosts"] },
    },
    202: pendingApprovalAnswer,
    400: errorAnswer("A field breaks its rule.", "actions must name clear-points, reset-negative-balances, …"),
  },
});

export const approvalSchema = z
  .object({
    id: z.number().int().min(1),
    action: z.enum(APPROVAL_KINDS).meta({ description: "The policy's action that covered it (`add-points` for the points threshold)." }),
    summary: z.string().meta({ description: "What it does, in the words the approver signs." }),
    preview: z
      .object({ before: z.unknown(), after: z.unknown() })
      .meta({ description: "What it would change, as read when it was asked: before → after." }),
    proposedBy: z.string(),
    createdAt: timestamp,
    expiresAt: timestamp,
    status: z.enum(APPROVAL_STATUSES),
    decidedBy: z.string().nullable().meta({ description: "Who approved or rejected it; null while pending or expired." }),
    decidedAt: timestamp.nullable(),
  })
  .meta({ id: "Approval" });

const EXAMPLE_APPROVAL = {
  id: 12,
  action: "clear-points",
  summary: `Clear the points of ${MEMBER}`,
  preview: { before: { points: 1384.5 }, after: { points: 0 } },
  proposedBy: OWNER,
  createdAt: "2026-11-01T10:30:01.000Z",
  expiresAt: "2026-11-02T10:30:01.000Z",
  status: "pending",
  decidedBy: null,
  decidedAt: null,
};

export const listApprovals = defineRoute({
  operationId: "listApprovals",
  method: "GET",
  path: "/api/admin/approvals",
  tag: TAG,
  summary: "Approvals, newest first",
  description: "Each covered request with what it would do (before → after), who asked, and its status; expired ones read `expired`.",
  auth: "admin-session",
  requires: { permission: "read", doing: "see approvals" },
  query: z.object({
    status: z
      .enum(APPROVAL_STATUSES, { error: `status must be one of ${APPROVAL_STATUSES.join(", ")}` })
      .optional()
      .meta({ description: "Only these." }),
  }),
  responses: {
    200: {
      description: "At most 100, newest first.",
      schema: z.object({ entries: z.array(approvalSchema), policy: approvalPolicySchema }).meta({ id: "Approvals" }),
      example: { entries: [EXAMPLE_APPROVAL], policy: { pointsAbove: 1000, actions: ["clear-points"] } },
    },
  },
});

const approvalParams = z.object({
  id: z
    .string()
    .refine((value) => /^[1-9]\d{0,9}$/.test(value) && Number(value) <= 2_147_483_647, {
      message: "Approval not found",
      params: { status: 404 },
    })
    .transform(Number)
    .meta({ description: "The approval's id.", examples: ["12"] }),
});

export const approveActionBody = z.object({ message: signedFields.message, signature: signedFields.signature });

const notPending = errorAnswer("It was already approved or rejected, or it expired.", "Approval #12 was already approved");

export const approveAction = defineRoute({
  operationId: "approveAction",
  method: "POST",
  path: "/api/admin/approvals/{id}/approve",
  tag: TAG,
  summary: "Approve a pending action with your wallet's signature: it is applied",
  description:
    "The signed-in member signs `Approve Spooks action #{id}: {summary}. Timestamp: {ISO}` (the summary exactly as listed; the timestamp " +
    "within 10 minutes of server time; each signature once). The approver must be a different member from the proposer (403 otherwise, " +
    "even for the owner) with the right to do the action (the owner's team and policy changes: an admin). The decision and the action are " +
    "one transaction: if the action is refused now (409, 400…), nothing changes and the approval stays pending. The action's audit row " +
    "names both members (`details.approval`).",
  auth: "admin-session",
  requires: { permission: "approve", doing: "approve actions" },
  signedMessage: "approve-action",
  params: approvalParams,
  body: {
    kind: "json",
    schema: approveActionBody,
    example: {
      message: `Approve Spooks action #12: Clear the points of ${MEMBER}. Timestamp: 2026-11-01T11:00:00.000Z`,
      signature: "IELlQpLyJwivrbG04Eo4PovJr5MqGaEQdbOkHxGBgwrWVuvdFyxpx1fG5KjE9rJZ04jEiDXZ+g6UKHXrqCs5uIs=",
    },
  },
  responses: {
    200: {
      description: "Approved and applied: the approval, and the action's own answer (a new webhook's secret is shown here, once).",
      schema: z.object({ approval: approvalSchema, result: z.unknown() }).meta({ id: "ApprovedAction" }),
      example: {
        approval: { ...EXAMPLE_APPROVAL, status: "approved", decidedBy: MEMBER, decidedAt: "2026-11-01T11:00:02.000Z" },
        result: { success: true, address: MEMBER, clearedPoints: 1384.5 },
      },
    },
    401: errorAnswer(
      "The message is not this approval's, is older than 10 minutes, was used before, or the signature is not the signed-in member's.",
      "The signed message is not approval #12's",
    ),
    404: errorAnswer("No approval has this id.", "Approval not found"),
    409: errorAnswer(
      "It was already approved or rejected, or it expired; or the action itself is refused now (entries already drawn, Discord roles off).",
      "Approval #12 was already approved",
    ),
    502: errorAnswer(
      "The action asks Discord first (Discord rules: the server's roles) and Discord could not be asked: nothing changed, it stays pending.",
      "Discord could not be reached; try again",
    ),
  },
});

export const rejectAction = defineRoute({
  operationId: "rejectAction",
  method: "POST",
  path: "/api/admin/approvals/{id}/reject",
  tag: TAG,
  summary: "Reject a pending action (or withdraw your own)",
  description: "Ends it unapplied. Its proposer, or a member who could approve it. Audited `approval.reject`.",
  auth: "admin-session",
  requires: { permission: "approve", doing: "reject actions" },
  params: approvalParams,
  responses: {
    200: { description: "Rejected.", schema: approvalSchema, example: { ...EXAMPLE_APPROVAL, status: "rejected", decidedBy: MEMBER } },
    404: errorAnswer("No approval has this id.", "Approval not found"),
    409: notPending,
  },
});

// Sessions --------------------------------------------------------------------------------------------------

export const sessionListingSchema = z
  .object({
    id: z.string().meta({ description: "The session's reference (a prefix of its token's hash, as its sign-in audit row names it)." }),
    address: z.string(),
    role: z.enum(MEMBER_ROLES).nullable().meta({ description: "The role its address holds now; null when it is no member any more." }),
    createdAt: timestamp,
    lastSeenAt: timestamp.meta({ description: "Its last request (to the minute)." }),
    expiresAt: timestamp,
    userAgent: z.string().nullable().meta({ description: "The browser that signed in (its User-Agent)." }),
    current: z.boolean().meta({ description: "Whether it is the session making this request." }),
  })
  .meta({ id: "AdminSession" });

export const listSessions = defineRoute({
  operationId: "listSessions",
  method: "GET",
  path: "/api/admin/sessions",
  tag: TAG,
  summary: "Live admin sessions: every member's for the owner, one's own for the others",
  auth: "admin-session",
  requires: { permission: "read", doing: "see sessions" },
  responses: {
    200: {
      description: "Newest first.",
      schema: z.array(sessionListingSchema),
      example: [
        {
          id: "3f9a0c1d2b7e",
          address: MEMBER,
          role: "moderator",
          createdAt: "2026-11-01T09:05:00.000Z",
          lastSeenAt: "2026-11-01T10:41:00.000Z",
          expiresAt: "2026-11-01T21:05:00.000Z",
          userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
          current: false,
        },
      ],
    },
  },
});

export const endSession = defineRoute({
  operationId: "endSession",
  method: "DELETE",
  path: "/api/admin/sessions/{id}",
  tag: TAG,
  summary: "End a session: any member's for the owner, one's own for the others",
  description: "The session is revoked at once: its next request is 401. Audited `auth.session-end`.",
  auth: "admin-session",
  requires: { permission: "read", doing: "end sessions" },
  params: z.object({
    id: z
      .string()
      .refine((value) => /^[0-9a-f]{12}$/.test(value), { message: "Session not found", params: { status: 404 } })
      .meta({ description: "The session's reference from GET /api/admin/sessions.", examples: ["3f9a0c1d2b7e"] }),
  }),
  responses: {
    200: { description: "Ended.", schema: z.object({ success: successTrue }), example: { success: true } },
    404: errorAnswer("No live session has this reference.", "Session not found"),
  },
});

// Client types ------------------------------------------------------------------------------------------------

export type TeamMember = ClientAnswer<typeof listTeam>[number];
export type AddTeamMemberRequest = RequestBody<typeof addTeamMember>;
export type ApprovalsAnswer = ClientAnswer<typeof listApprovals>;
export type ApprovalEntry = ApprovalsAnswer["entries"][number];
export type ApprovalPolicyAnswer = ClientAnswer<typeof getApprovalPolicy>;
export type ApprovedAction = ClientAnswer<typeof approveAction>;
export type AdminSessionEntry = ClientAnswer<typeof listSessions>[number];
