import { ProposalCard } from "./proposal-card.tsx";
import { EMPTY_TEXTS, type ProposalView, type UserVoteView } from "./types.ts";
import type { ProposalStatus } from "../../domain/governance.ts";
import { GhostIcon } from "../icons.tsx";

export function ProposalList({
  status,
  proposals,
  userVotes,
}: {
  status: ProposalStatus;
  proposals: ProposalView[];
  /** The connected holder's votes (null: not connected, or not known yet). */
  userVotes: UserVoteView[] | null;
}) {
  if (proposals.length === 0) {
    return (
      <div className="flex flex-col items-center gap-3 rounded-xl border border-dashed border-zinc-800 bg-zinc-900/40 px-6 py-14 text-center">
        <GhostIcon className="h-10 w-10 text-zinc-600" />
        <p className="text-zinc-400">{EMPTY_TEXTS[status]}</p>
      </div>
    );
  }
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
      {proposals.map((proposal) => (
        <ProposalCard
          key={proposal.id}
          proposal={proposal}
          votedOptionId={userVotes?.find((vote) => vote.proposalId === proposal.id)?.optionId ?? null}
        />
      ))}
    </div>
  );
}
