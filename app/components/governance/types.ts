import type { ServerAnswer } from "../../api/kit.ts";
import type { getProposal, listProposals, UserVote } from "../../api/proposals.ts";
import type { ProposalStatus, VoteType } from "../../domain/governance.ts";

/** Loader data keeps Dates; /api JSON gives ISO strings: a view accepts either. */
type Viewed<T> = { [K in keyof T]: T[K] extends Date ? Date | string : T[K] };

/** A proposal as the page reads it: the /api contract's shape, from the loader or from the API. */
export type ProposalView = Viewed<ServerAnswer<typeof listProposals>[number]>;
export type ProposalDetailView = Viewed<ServerAnswer<typeof getProposal>>;
export type UserVoteView = UserVote;

export const STATUS_LABELS: Record<ProposalStatus, string> = {
  active: "Active",
  upcoming: "Upcoming",
  completed: "Completed",
};

export const VOTE_TYPE_LABELS: Record<VoteType, string> = {
  yes_no: "Yes/No Vote",
  multiple_choice: "Multiple Choice",
};

export const FOOTER_TEXTS: Record<ProposalStatus, string> = {
  upcoming: "Starts soon",
  active: "Vote now",
  completed: "Voting ended",
};

export const EMPTY_TEXTS: Record<ProposalStatus, string> = {
  active: "No active proposals at this time",
  upcoming: "No upcoming proposals at this time",
  completed: "No completed proposals at this time",
};
