/**
 * The one way the admin tabs tell a change's answer (issue 35): a 202 kept for a second signature says so, in the
 * words of app/domain/approvals.ts; anything else is the change's own success.
 */
import { approvalRequested } from "../../domain/approvals.ts";
import { isPendingApproval, type PendingApproval } from "../../lib/api.ts";
import { toast } from "../ui/toast.tsx";

/** The line a tab shows of a change kept for a second signature. */
export const approvalRequestedText = (answer: PendingApproval) => approvalRequested(answer.approvalId, answer.summary).description;

/** The toast of a change kept for a second signature. */
export const toastApprovalRequested = (answer: PendingApproval) =>
  toast({ ...approvalRequested(answer.approvalId, answer.summary), variant: "success" });

/** The toast of a change that answered: kept for a second signature, or applied (`title`, `description`). */
export function toastChanged(answer: unknown, title: string, description: string): void {
  if (isPendingApproval(answer)) toastApprovalRequested(answer);
  else toast({ title, description, variant: "success" });
}
