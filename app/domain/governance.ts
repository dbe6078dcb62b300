import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

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

// Votes that can change, and quorum (issue 26, item 4; docs/fairness.md "Votes that change") ----------------

export const QUORUM_KINDS = ["power", "percent"] as const;
export type QuorumKind = (typeof QUORUM_KINDS)[number];
/** `power`: at least `value` voting power cast; `percent`: at least `value`% of the power staked at the proposal's start. */
export type Quorum = { kind: QuorumKind; value: number };

export const PROPOSAL_OUTCOMES = ["passed", "failed", "quorum not met"] as const;

/**
 * A counted quorum in one line: "24 votes of 3 required (met)", "1 vote of 3 required (not met)" (issue 33,
 * item 10: the CLI's line); a percent quorum adds what the number comes from.
 */
export function quorumCountText(quorum: Quorum, totalVotes: number, requiredPower: number, met: boolean): string {
  const votes = `${totalVotes.toLocaleString("en-US")} ${totalVotes === 1 ? "vote" : "votes"}`;
  const line = `${votes} of ${requiredPower.toLocaleString("en-US")} required (${met ? "met" : "not met"})`;
  return quorum.kind === "percent" ? `${line}: ${quorum.value}% of the power staked at the start` : line;
}

/** The voting power a quorum asks for, given the power staked at the proposal's start (percent: rounded up). */
export function requiredPower(quorum: Quorum, stakedAtStart: number): number {
  return quorum.kind === "power" ? quorum.value : Math.ceil((quorum.value * stakedAtStart) / 100);
}

/** SHA-256 of a signature's text (UTF-8), hex: what breaks a tie between two votes signed at the same instant. */
export function signatureDigest(signature: string): string {
  return bytesToHex(sha256(utf8ToBytes(signature)));
}

/**
 * How far ahead of the server's clock a vote's signed timestamp may be (issue 32, item 11): the later signed vote
 * counts, so one dated ten minutes ahead would win every change for ten minutes. The database holds the same rule
 * (migration 0026, against the time the vote was recorded).
 */
export const VOTE_MAX_AHEAD_MS = 60_000;

export function isVoteTimestampAhead(signedAt: Date, serverNow: Date): boolean {
  return signedAt.getTime() - serverNow.getTime() > VOTE_MAX_AHEAD_MS;
}

/** Whether vote `a` replaces vote `b` of the same wallet: signed later, or at the same instant with the higher SHA-256 of its signature. */
export function replaces(a: { signedAt: Date; signature: string }, b: { signedAt: Date; signature: string }): boolean {
  if (a.signedAt.getTime() !== b.signedAt.getTime()) return a.signedAt.getTime() > b.signedAt.getTime();
  return signatureDigest(a.signature) > signatureDigest(b.signature);
}

/**
 * A finished proposal's outcome (null while it is upcoming or active): "quorum not met" when it has a quorum
 * the votes did not reach; otherwise, yes/no: "passed" when Yes has more power than No, else "failed" (a
 * tie, or no votes, fails); multiple choice: the text of the option with the most power, "failed" when
 * two or more share the most (or nobody voted).
 */
export function proposalOutcome(input: {
  status: ProposalStatus;
  voteType: VoteType;
  options: readonly { optionText: string; voteCount: number }[];
  quorumMet: boolean | null;
}): string | null {
  if (input.status !== "completed") return null;
  if (input.quorumMet === false) return "quorum not met";
  if (input.voteType === "yes_no") {
    const yes = input.options.find((option) => option.optionText === "Yes")?.voteCount ?? 0;
    const no = input.options.find((option) => option.optionText === "No")?.voteCount ?? 0;
    return yes > no ? "passed" : "failed";
  }
  const most = Math.max(0, ...input.options.map((option) => option.voteCount));
  const leaders = input.options.filter((option) => option.voteCount === most);
  return most > 0 && leaders.length === 1 ? leaders[0].optionText : "failed";
}
