import { Link } from "react-router";
import { previewText } from "../../domain/format.ts";
import { CheckIcon, ClockIcon } from "../icons.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { DateText } from "./date-text.tsx";
import { quorumRuleText } from "./rules.ts";
import { StatusBadge } from "./status-badge.tsx";
import { FOOTER_TEXTS, VOTE_TYPE_LABELS, type ProposalView } from "./types.ts";

/** The address of a proposal's own page: its details dialog over the list. */
export const proposalPath = (id: number) => `/governance/${id}`;

/**
 * A proposal in the list: status, vote type, title, description preview, dates, "You voted {option}" once
 * the connected holder voted, and 'View Details' (a link to the proposal's own address).
 */
export function ProposalCard({ proposal, votedOptionId }: { proposal: ProposalView; votedOptionId: number | null }) {
  const headingId = `proposal-${proposal.id}-title`;
  // Once voted, the footer says so, never "Vote now" (issue 33, item 2); "Change vote" only where the proposal allows it.
  const voted = votedOptionId !== null && proposal.status === "active";
  const canChange = voted && proposal.allowVoteChange;
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
        {proposal.allowVoteChange && <Badge variant="outline">Votes can change</Badge>}
        {proposal.quorum && <Badge variant="outline">Quorum: {quorumRuleText(proposal.quorum, { short: true })}</Badge>}
      </div>
      <div className="flex flex-1 flex-col gap-2 px-5">
        <h3 id={headingId} className="text-lg font-semibold tracking-tight text-zinc-50">
          {proposal.title}
        </h3>
        <p className="text-sm wrap-anywhere text-zinc-400">{previewText(proposal.description)}</p>
        <p className="mt-auto flex items-center gap-1.5 pt-3 text-xs text-zinc-400">
          <ClockIcon className="h-3.5 w-3.5" />
          <DateText value={proposal.startDate} /> <span aria-hidden>–</span>
          <span className="sr-only">to</span> <DateText value={proposal.endDate} />
        </p>
        {votedOptionId !== null && (
          <p className="flex items-center gap-1.5 text-sm font-medium text-emerald-300" data-testid="proposal-voted">
            <CheckIcon className="h-4 w-4" />
            You voted {proposal.options.find((option) => option.id === votedOptionId)?.optionText ?? "Unknown option"}
          </p>
        )}
      </div>
      <div className="mt-4 flex items-center justify-between gap-3 border-t border-zinc-800/80 px-5 py-3">
        <span
          data-testid="proposal-footer"
          className={
            voted
              ? "text-sm font-medium text-zinc-300"
              : proposal.status === "active"
                ? "text-sm font-medium text-emerald-300"
                : proposal.status === "upcoming"
                  ? "text-sm font-medium text-amber-300"
                  : "text-sm font-medium text-zinc-400"
          }
        >
          {voted ? "You voted" : FOOTER_TEXTS[proposal.status]}
        </span>
        <Button asChild size="sm" variant={proposal.status === "active" && !voted ? "default" : "outline"}>
          <Link to={proposalPath(proposal.id)} preventScrollReset>
            {canChange ? "Change vote" : "View Details"}
            {canChange && <span className="sr-only">: {proposal.title}</span>}
          </Link>
        </Button>
      </div>
    </Card>
  );
}
