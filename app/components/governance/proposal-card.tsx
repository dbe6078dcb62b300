import { previewText } from "../../domain/format.ts";
import { ClockIcon } from "../icons.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { DateText } from "./date-text.tsx";
import { StatusBadge } from "./status-badge.tsx";
import { FOOTER_TEXTS, VOTE_TYPE_LABELS, type ProposalView } from "./types.ts";

/** A proposal in the list: status, vote type, title, description preview, dates and 'View Details'. */
export function ProposalCard({ proposal, onOpen }: { proposal: ProposalView; onOpen: () => void }) {
  const headingId = `proposal-${proposal.id}-title`;
  return (
    <Card
      className="flex h-full flex-col transition-colors hover:border-violet-500/40"
      role="article"
      aria-labelledby={headingId}
      data-testid="proposal-card"
    >
      <div className="flex flex-wrap items-center gap-2 p-5 pb-3">
        <StatusBadge status={proposal.status} />
        <Badge variant="outline">{VOTE_TYPE_LABELS[proposal.voteType]}</Badge>
      </div>
      <div className="flex flex-1 flex-col gap-2 px-5">
        <h3 id={headingId} className="text-lg font-semibold tracking-tight text-zinc-50">
          {proposal.title}
        </h3>
        <p className="text-sm break-words text-zinc-400">{previewText(proposal.description)}</p>
        <p className="mt-auto flex items-center gap-1.5 pt-3 text-xs text-zinc-400">
          <ClockIcon className="h-3.5 w-3.5" />
          <DateText value={proposal.startDate} /> <span aria-hidden>–</span>
          <span className="sr-only">to</span> <DateText value={proposal.endDate} />
        </p>
      </div>
      <div className="mt-4 flex items-center justify-between gap-3 border-t border-zinc-800/80 px-5 py-3">
        <span
          className={
            proposal.status === "active"
              ? "text-sm font-medium text-emerald-300"
              : proposal.status === "upcoming"
                ? "text-sm font-medium text-amber-300"
                : "text-sm font-medium text-zinc-400"
          }
        >
          {FOOTER_TEXTS[proposal.status]}
        </span>
        <Button size="sm" variant={proposal.status === "active" ? "default" : "outline"} onClick={onOpen}>
          View Details
        </Button>
      </div>
    </Card>
  );
}
