export const VOTE_TYPES = ["yes_no", "multiple_choice"] as const;
export type VoteType = (typeof VOTE_TYPES)[number];
export type ProposalStatus = "upcoming" | "active" | "completed";

export const YES_NO_OPTIONS = ["Yes", "No"] as const;
export const MIN_MULTIPLE_CHOICE_OPTIONS = 2;

/** Before start → upcoming, from start until end → active, after → completed. */
export function proposalStatus(startDate: Date, endDate: Date, at: Date): ProposalStatus {
  if (at.getTime() < startDate.getTime()) return "upcoming";
  if (at.getTime() <= endDate.getTime()) return "active";
  return "completed";
}

/** Options a new proposal gets: Yes/No for yes_no; otherwise the trimmed, non-blank texts given. */
export function normalizeOptions(voteType: VoteType, options: readonly string[]): string[] {
  if (voteType === "yes_no") return [...YES_NO_OPTIONS];
  return options.map((option) => option.trim()).filter((option) => option.length > 0);
}
