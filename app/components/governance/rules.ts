/**
 * A proposal's voting rules in words (issue 26, item 4): whether a vote can change, its quorum and, once
 * it has ended, its outcome. The page never says a vote cannot be changed when it can.
 */
import { formatNumber } from "../../domain/format.ts";
import type { QuorumKind } from "../../domain/governance.ts";

type Quorum = { kind: QuorumKind; value: number } | null;
type QuorumStatus = { kind: QuorumKind; value: number; requiredPower: number | null; stakedAtStart: number | null } | null;

export const VOTE_CHANGE_TEXTS = {
  allowed: "Votes can be changed until voting ends: each wallet's latest signed vote counts.",
  refused: "One vote per wallet: a vote cannot be changed.",
} as const;

export function voteChangeText(allowVoteChange: boolean): string {
  return allowVoteChange ? VOTE_CHANGE_TEXTS.allowed : VOTE_CHANGE_TEXTS.refused;
}

/** "20% of the voting power staked at the start" ("20% of the voting power" in `short`), "5 voting power", or "None". */
export function quorumRuleText(quorum: Quorum, { short = false } = {}): string {
  if (!quorum) return "None";
  if (quorum.kind === "power") return `${formatNumber(quorum.value)} voting power`;
  return `${quorum.value}% of the voting power${short ? "" : " staked at the start"}`;
}

/**
 * The quorum with what it asks for and whether it is reached: "20% of the voting power staked at the start
 * (4 of 18): reached". `met` is null before the start (nothing counted yet).
 */
export function quorumStatusText(status: QuorumStatus, met: boolean | null, ended: boolean): string {
  if (!status) return "None";
  const required =
    status.kind === "percent" && status.requiredPower !== null && status.stakedAtStart !== null
      ? ` (${formatNumber(status.requiredPower)} of ${formatNumber(status.stakedAtStart)})`
      : "";
  const state = met === null ? "" : met ? ": reached" : ended ? ": not reached" : ": not reached yet";
  return `${quorumRuleText(status)}${required}${state}`;
}

const OUTCOME_LABELS: Record<string, string> = { passed: "Passed", failed: "Failed", "quorum not met": "Quorum not met" };

/** The outcome as shown: "Passed", "Failed", "Quorum not met", or a multiple-choice winner's text as it is. */
export function outcomeText(outcome: string): string {
  return OUTCOME_LABELS[outcome] ?? outcome;
}
