/**
 * `approvals list [--status S]`: what the owner's policy holds back for a second member's signature (issue 35;
 * docs/admin.md), newest first, with what each would do. Approving takes a member's wallet signature, so it is
 * done on /admin (or POST /api/admin/approvals/{id}/approve); the CLI's own changes never wait for one.
 */
import type { Command } from "commander";
import { z } from "zod";
import { approvalSchema } from "../../app/api/team.ts";
import { APPROVAL_KIND_LABELS, APPROVAL_STATUSES, type ApprovalStatus } from "../../app/domain/approvals.ts";
import { listApprovals, type Approval } from "../../db/queries/approvals.server.ts";
import { dateTime } from "../format.ts";
import { action, CliError, leaf, outputAnswer, outputColumns, withDatabase, type OutputOptions } from "../runtime.ts";
import { tableView } from "../views.tsx";

type ListOptions = OutputOptions & { status?: string };

export function registerApprovals(program: Command): void {
  const group = program.command("approvals").description("actions waiting for a second member's signature");
  leaf(group, "list", "approvals, newest first, with before → after")
    .option("--status <status>", `only ${APPROVAL_STATUSES.join(", ")}`)
    .action(action(list));
}

function parseStatus(text: string | undefined): ApprovalStatus | undefined {
  if (text === undefined) return undefined;
  if (!(APPROVAL_STATUSES as readonly string[]).includes(text)) {
    throw new CliError(`--status must be one of ${APPROVAL_STATUSES.join(", ")} (got '${text}')`);
  }
  return text as ApprovalStatus;
}

async function list(options: ListOptions): Promise<void> {
  const status = parseStatus(options.status);
  const entries = await withDatabase(({ sql }) => listApprovals(sql, { status }));
  await outputAnswer(options, z.array(approvalSchema), entries, () => approvalsView(entries));
}

const short = (value: unknown) => (value === null || value === undefined ? "—" : JSON.stringify(value));

function approvalsView(entries: Approval[]) {
  return tableView({
    rows: entries,
    empty: "No approvals",
    width: outputColumns(),
    columns: [
      { header: "Id", value: (row) => String(row.id) },
      { header: "Status", value: (row) => row.status },
      { header: "Action", value: (row) => `${APPROVAL_KIND_LABELS[row.action]}: ${row.summary}` },
      { header: "Before → after", value: (row) => `${short(row.preview.before)} → ${short(row.preview.after)}` },
      { header: "Proposed by", value: (row) => row.proposedBy },
      {
        header: "When",
        value: (row) => (row.decidedBy ? `${row.status} by ${row.decidedBy}` : `expires ${dateTime(row.expiresAt)}`),
        minWidth: 20,
      },
    ],
  });
}
