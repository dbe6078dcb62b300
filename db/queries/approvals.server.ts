/**
 * Second-signature approvals (migration 0035; app/domain/approvals.ts): the owner's policy, and the pending
 * requests it holds back. A request is stored as it was asked (its operation and parsed input) with the line
 * the approver signs and what it would do; app/utils/approvals.server.ts applies it when approved.
 */
import {
  NO_POLICY,
  statusAt,
  type ApprovalAction,
  type ApprovalKind,
  type ApprovalPolicy,
  type ApprovalStatus,
} from "../../app/domain/approvals.ts";
import { now } from "../../app/domain/clock.ts";
import { notFound } from "../../app/domain/errors.ts";
import { notificationText } from "../../app/domain/notifications.ts";
import type { Queryable } from "../client.server.ts";
import { recordAudit, type Actor } from "./audit.server.ts";
import { notify } from "./notifications.server.ts";

export async function getPolicy(sql: Queryable): Promise<ApprovalPolicy & { updatedBy: string | null; updatedAt: Date | null }> {
  const [row] = await sql<{ pointsAbove: string | null; actions: ApprovalAction[]; updatedBy: string; updatedAt: Date }[]>`
    select points_above, actions, updated_by, updated_at from approval_policy`;
  if (!row) return { ...NO_POLICY, updatedBy: null, updatedAt: null };
  return {
    pointsAbove: row.pointsAbove === null ? null : Number(row.pointsAbove),
    actions: row.actions,
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  };
}

/** Replaces the policy; audited `approval.policy` with before → after. */
export async function setPolicy(sql: Queryable, policy: ApprovalPolicy, actor: Actor): Promise<ApprovalPolicy> {
  const before = await getPolicy(sql);
  const updatedBy = actor.kind === "web" ? actor.address : actor.kind;
  await sql`
    insert into approval_policy (id, points_above, actions, updated_by, updated_at)
    values (true, ${policy.pointsAbove}, ${policy.actions}, ${updatedBy}, ${now()})
    on conflict (id) do update set points_above = excluded.points_above, actions = excluded.actions,
      updated_by = excluded.updated_by, updated_at = excluded.updated_at`;
  const after = { pointsAbove: policy.pointsAbove, actions: policy.actions };
  await recordAudit(
    sql,
    actor,
    "approval.policy",
    null,
    {},
    { before: { pointsAbove: before.pointsAbove, actions: before.actions }, after },
  );
  return after;
}

export type Approval = {
  id: number;
  action: ApprovalKind;
  operation: string;
  input: unknown;
  summary: string;
  preview: { before: unknown; after: unknown };
  proposedBy: string;
  createdAt: Date;
  expiresAt: Date;
  status: ApprovalStatus;
  decidedBy: string | null;
  decidedAt: Date | null;
};

type ApprovalRow = Omit<Approval, "status" | "action"> & { kind: ApprovalKind; status: "pending" | "approved" | "rejected" };

const COLUMNS = (sql: Queryable) =>
  sql`id, kind, operation, input, summary, preview, proposed_by, created_at, expires_at, status, decided_by, decided_at`;

function asApproval({ kind, ...row }: ApprovalRow, at: Date): Approval {
  return { ...row, action: kind, status: statusAt(row.status, row.expiresAt, at) };
}

export type NewApproval = {
  kind: ApprovalKind;
  operation: string;
  input: unknown;
  summary: string;
  preview: { before: unknown; after: unknown };
  proposedBy: string;
  ttlMs: number;
};

/** Stores a covered request, announces it (`approval.pending`) and audits it (`approval.propose`), all in the caller's transaction. */
export async function proposeApproval(sql: Queryable, approval: NewApproval, actor: Actor): Promise<Approval> {
  const at = now();
  const expiresAt = new Date(at.getTime() + approval.ttlMs);
  const { summary } = approval;
  const [row] = await sql<ApprovalRow[]>`
    insert into admin_approvals (kind, operation, input, summary, preview, proposed_by, created_at, expires_at)
    values (${approval.kind}, ${approval.operation}, ${sql.json(approval.input as never)}, ${summary},
            ${sql.json(JSON.parse(JSON.stringify(approval.preview)) as never)}, ${approval.proposedBy}, ${at}, ${expiresAt})
    returning ${COLUMNS(sql)}`;
  const id = row.id;
  const text = notificationText.approvalPending({ id, summary, proposedBy: approval.proposedBy, expiresAt });
  await notify(
    sql,
    [
      {
        event: "approval.pending",
        subject: id,
        ...text,
        data: { approvalId: id, action: approval.kind, summary, expiresAt: expiresAt.toISOString() },
      },
    ],
    at,
  );
  await recordAudit(
    sql,
    actor,
    "approval.propose",
    `approval:${id}`,
    { action: approval.kind, summary },
    { before: null, after: approval.preview },
  );
  return asApproval(row, at);
}

export type ApprovalFilter = { status?: ApprovalStatus; limit?: number };

/** Newest first, at most `limit`; `status` filters (`expired`: pending past its expiry). */
export async function listApprovals(sql: Queryable, { status, limit = 100 }: ApprovalFilter = {}): Promise<Approval[]> {
  const at = now();
  const where =
    status === "pending"
      ? sql`status = 'pending' and expires_at > ${at}`
      : status === "expired"
        ? sql`status = 'pending' and expires_at <= ${at}`
        : status
          ? sql`status = ${status}`
          : sql`true`;
  const rows = await sql<ApprovalRow[]>`select ${COLUMNS(sql)} from admin_approvals where ${where} order by id desc limit ${limit}`;
  return rows.map((row) => asApproval(row, at));
}

/** The approval as it stands (404 when there is none). */
export async function getApproval(sql: Queryable, id: number): Promise<Approval> {
  const [row] = await sql<ApprovalRow[]>`select ${COLUMNS(sql)} from admin_approvals where id = ${id}`;
  if (!row) throw notFound("Approval not found");
  return asApproval(row, now());
}

/** The approval, locked for the rest of the transaction (two approvers cannot both apply it). */
export async function lockApproval(sql: Queryable, id: number): Promise<Approval> {
  const [row] = await sql<ApprovalRow[]>`select ${COLUMNS(sql)} from admin_approvals where id = ${id} for update`;
  if (!row) throw notFound("Approval not found");
  return asApproval(row, now());
}

/** Records the decision (the trigger of migration 0035 refuses a second one). */
export async function decideApproval(
  sql: Queryable,
  id: number,
  decision: { status: "approved" | "rejected"; decidedBy: string; message?: string; signature?: string },
): Promise<void> {
  await sql`
    update admin_approvals set status = ${decision.status}, decided_by = ${decision.decidedBy}, decided_at = ${now()},
      approval_message = ${decision.message ?? null}, approval_signature = ${decision.signature ?? null}
    where id = ${id}`;
}
