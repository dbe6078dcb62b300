import type { ProposalStatus, VoteType } from "../../domain/governance.ts";

type When = Date | string;

/** A proposal as the page reads it (loader data keeps Dates; /api JSON gives ISO strings). */
export type ProposalView = {
  id: number;
  title: string;
  description: string;
  startDate: When;
  endDate: When;
  status: ProposalStatus;
  voteType: VoteType;
  options: { id: number; optionText: string }[];
  createdBy: string;
};

export type ProposalDetailView = Omit<ProposalView, "options"> & {
  options: { id: number; optionText: string; voteCount: number }[];
  totalVotes: number;
  uniqueVoters: number;
};

export type UserVoteView = { proposalId: number; optionId: number };

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
