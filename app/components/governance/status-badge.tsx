import type { ProposalStatus } from "../../domain/governance.ts";
import { Badge, type BadgeVariant } from "../ui/badge.tsx";
import { STATUS_LABELS } from "./types.ts";

const VARIANTS: Record<ProposalStatus, BadgeVariant> = {
  active: "success",
  upcoming: "warning",
  completed: "secondary",
};

export function StatusBadge({ status }: { status: ProposalStatus }) {
  return (
    <Badge variant={VARIANTS[status]} data-status={status}>
      {status === "active" && <span aria-hidden className="size-1.5 rounded-full bg-emerald-400" />}
      {STATUS_LABELS[status]}
    </Badge>
  );
}
