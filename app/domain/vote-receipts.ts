/**
 * Checking a proposal's votes from its public receipts (GET /api/proposals/{id}/votes), without trusting
 * the server: each signature is verified as the server verifies it (either message magic), each signed
 * message must name this proposal, its title and the option counted; each item a vote's power counts must be
 * a well-formed inscription id (of the catalogue, when the caller has it), counted once across all votes, and
 * the power must be their count; the tally is recomputed and compared with the published results, which is
 * where a vote left out of the receipts shows (`totalVotes`, `uniqueVoters`). Used by the "Verify votes" view
 * (in the browser) and by `spooks-admin proposals verify` (with the catalogue).
 */
import { isInscriptionId } from "./collections.ts";
import { replaces } from "./governance.ts";
import { isFreshTimestamp, parseVoteMessage } from "./messages.ts";
import { SignatureError, verifySignedMessage, type Magic } from "./signature.ts";

export type VoteReceipt = {
  address: string;
  /** The option id counted. */
  option: number;
  votingPower: number;
  message: string;
  signature: string;
  /** ISO 8601, when the server recorded it. */
  votedAt: string;
  /** The inscription ids staked by the wallet at the proposal's start: its power. */
  stakedAtStart: string[] | null;
  /** The vote's id, and the id of the same wallet's vote that replaced it (issue 26; absent from older receipts). */
  id?: number;
  supersededBy?: number | null;
};

export type PublishedResults = {
  id: number;
  title: string;
  startDate: string;
  endDate: string;
  options: { id: number; optionText: string; voteCount: number }[];
  totalVotes: number;
  uniqueVoters: number;
  /** Whether a wallet may vote again, its latest signed vote counting (absent: it may not). */
  allowVoteChange?: boolean;
};

export type VoteCheck = { index: number; address: string; magic: Magic | null; problems: string[] };

export type Tally = { options: { id: number; voteCount: number }[]; totalVotes: number; uniqueVoters: number };

export type VotesVerification = {
  checks: VoteCheck[];
  /** The votes with at least one problem, in receipt order. */
  failed: VoteCheck[];
  /** The tally recomputed from every receipt, to compare with the published results. */
  tally: Tally;
  /** Where the recomputed tally differs from the published results (none: they agree). */
  tallyDifferences: string[];
  verified: boolean;
};

function signatureProblem(vote: VoteReceipt): { magic: Magic | null; problem: string | null } {
  try {
    return { magic: verifySignedMessage(vote.message, vote.address, vote.signature), problem: null };
  } catch (error) {
    const reason = error instanceof SignatureError ? error.message : "Invalid signature";
    return { magic: null, problem: `Signature does not check out: ${reason}` };
  }
}

function messageProblems(results: PublishedResults, vote: VoteReceipt): string[] {
  const signed = parseVoteMessage(vote.message);
  if (!signed) return ["The signed message is not a vote message"];
  const problems: string[] = [];
  if (signed.proposalId !== results.id) problems.push(`The signed message names proposal #${signed.proposalId}, not #${results.id}`);
  if (signed.title !== results.title) problems.push("The signed message names another title");
  if (signed.optionId !== vote.option)
    problems.push(`The signed message names option ${signed.optionId}, the vote counts option ${vote.option}`);
  const votedAt = new Date(vote.votedAt);
  if (!isFreshTimestamp(signed.timestamp, votedAt)) problems.push("Signed more than 10 minutes from when it was recorded");
  if (votedAt < new Date(results.startDate) || votedAt > new Date(results.endDate)) problems.push("Recorded outside the voting window");
  return problems;
}

/** The catalogue's inscription ids, when the verifier has them (the CLI reads them from the database). */
export type Catalogue = ReadonlySet<string>;

function itemProblems(items: readonly string[], catalogue: Catalogue | undefined): string[] {
  // Receipts are read as they come (a forged answer may hold anything), so nothing is assumed of an item.
  const wellFormed = (item: unknown): item is string => typeof item === "string" && isInscriptionId(item);
  const malformed = items.filter((item) => !wellFormed(item));
  const foreign = catalogue ? items.filter((item) => wellFormed(item) && !catalogue.has(item)) : [];
  return [
    ...malformed.map((item) => `Item ${JSON.stringify(String(item).slice(0, 80))} is not a well-formed inscription id`),
    ...foreign.map((item) => `Item ${item} is not in the catalogue`),
  ];
}

function powerProblems(vote: VoteReceipt, catalogue: Catalogue | undefined): string[] {
  if (!Number.isSafeInteger(vote.votingPower) || vote.votingPower < 1)
    return [`Voting power ${vote.votingPower} is not a positive whole number`];
  if (!vote.stakedAtStart) return ["No staked items are listed for its voting power"];
  const items = itemProblems(vote.stakedAtStart, catalogue);
  if (items.length > 0) return items;
  const distinct = new Set(vote.stakedAtStart).size;
  if (distinct !== vote.stakedAtStart.length) return ["An item is listed twice for its voting power"];
  if (distinct !== vote.votingPower)
    return [`Voting power ${vote.votingPower}, but ${distinct} staked ${distinct === 1 ? "item" : "items"} listed`];
  return [];
}

/** Every problem of one vote on its own (signature, message, option, power and the items making it). */
export function checkVote(results: PublishedResults, vote: VoteReceipt, index = 0, catalogue?: Catalogue): VoteCheck {
  const { magic, problem } = signatureProblem(vote);
  const problems = [...(problem ? [problem] : []), ...messageProblems(results, vote), ...powerProblems(vote, catalogue)];
  if (!results.options.some((option) => option.id === vote.option)) problems.push(`Option ${vote.option} is not one of this proposal's`);
  return { index, address: vote.address, magic, problems };
}

const signedAt = (vote: VoteReceipt) => parseVoteMessage(vote.message)?.timestamp ?? new Date(vote.votedAt);

/**
 * The index of each wallet's counted vote: its only one, or, where votes can change, its latest signed (the
 * later signed timestamp; equal: the higher SHA-256 of the signature), recomputed from the signed messages.
 */
export function latestVotes(votes: readonly VoteReceipt[]): Set<number> {
  const latest = new Map<string, number>();
  votes.forEach((vote, index) => {
    const current = latest.get(vote.address);
    const candidate = { signedAt: signedAt(vote), signature: vote.signature };
    if (current === undefined) latest.set(vote.address, index);
    else if (replaces(candidate, { signedAt: signedAt(votes[current]), signature: votes[current].signature }))
      latest.set(vote.address, index);
  });
  return new Set(latest.values());
}

/**
 * Problems between votes: a wallet voting twice (where votes cannot change), a replaced vote published as
 * counted or the other way round, an item giving power to two counted votes.
 */
function crossProblems(results: PublishedResults, votes: readonly VoteReceipt[], checks: VoteCheck[], counted: Set<number>): void {
  const voters = new Map<string, number>();
  const items = new Map<string, number>();
  votes.forEach((vote, index) => {
    const earlier = voters.get(vote.address);
    if (earlier !== undefined && !results.allowVoteChange) checks[index].problems.push(`This wallet already voted (vote ${earlier + 1})`);
    else if (earlier === undefined) voters.set(vote.address, index);
    if (vote.supersededBy !== undefined) {
      if (counted.has(index) && vote.supersededBy !== null) {
        checks[index].problems.push("Published as replaced, but it is the wallet's latest signed vote");
      } else if (!counted.has(index) && vote.supersededBy === null) {
        checks[index].problems.push("Published as counted, but the same wallet signed a later vote");
      }
    }
    if (!counted.has(index)) return;
    for (const item of new Set(vote.stakedAtStart ?? [])) {
      const other = items.get(item);
      if (other !== undefined && other !== index) checks[index].problems.push(`Item ${item} also counted for vote ${other + 1}`);
      else items.set(item, index);
    }
  });
}

/** The tally of the counted votes: each wallet's latest (every vote where votes cannot change: a second one is a problem anyway). */
export function recomputeTally(results: PublishedResults, allVotes: readonly VoteReceipt[]): Tally {
  const counted = results.allowVoteChange ? latestVotes(allVotes) : null;
  const votes = counted ? allVotes.filter((_, index) => counted.has(index)) : allVotes;
  const counts = new Map(results.options.map((option) => [option.id, 0]));
  for (const vote of votes) counts.set(vote.option, (counts.get(vote.option) ?? 0) + vote.votingPower);
  return {
    options: [...counts].map(([id, voteCount]) => ({ id, voteCount })),
    totalVotes: votes.reduce((sum, vote) => sum + vote.votingPower, 0),
    uniqueVoters: new Set(votes.map((vote) => vote.address)).size,
  };
}

function tallyDifferences(results: PublishedResults, tally: Tally): string[] {
  const differences: string[] = [];
  for (const { id, voteCount } of tally.options) {
    const published = results.options.find((option) => option.id === id);
    const label = published ? `"${published.optionText}"` : `option ${id}`;
    if (!published) differences.push(`Votes count ${label}, which the results do not list`);
    else if (published.voteCount !== voteCount)
      differences.push(`${label}: ${published.voteCount} published, ${voteCount} in the receipts`);
  }
  if (results.totalVotes !== tally.totalVotes)
    differences.push(`Total: ${results.totalVotes} published, ${tally.totalVotes} in the receipts`);
  if (results.uniqueVoters !== tally.uniqueVoters) {
    differences.push(`Voters: ${results.uniqueVoters} published, ${tally.uniqueVoters} in the receipts`);
  }
  return differences;
}

export type VerifyOptions = {
  /** The catalogue's inscription ids: each item counted must be one of them (without it, only their form is checked). */
  catalogue?: Catalogue;
  /** Votes checked between two calls of `pause` (the page lets itself paint). */
  batchSize?: number;
  pause?: () => Promise<void>;
  onProgress?: (checked: number, total: number) => void;
};

/** Checks every vote and the tally; `pause` between batches keeps a page responsive over thousands of votes. */
export async function verifyVotes(
  results: PublishedResults,
  votes: readonly VoteReceipt[],
  { batchSize = 100, pause, onProgress, catalogue }: VerifyOptions = {},
): Promise<VotesVerification> {
  const checks: VoteCheck[] = [];
  for (let start = 0; start < votes.length; start += batchSize) {
    votes.slice(start, start + batchSize).forEach((vote, offset) => checks.push(checkVote(results, vote, start + offset, catalogue)));
    onProgress?.(checks.length, votes.length);
    if (pause && start + batchSize < votes.length) await pause();
  }
  crossProblems(results, votes, checks, results.allowVoteChange ? latestVotes(votes) : new Set(votes.map((_, index) => index)));
  const tally = recomputeTally(results, votes);
  const differences = tallyDifferences(results, tally);
  const failed = checks.filter((check) => check.problems.length > 0);
  return { checks, failed, tally, tallyDifferences: differences, verified: failed.length === 0 && differences.length === 0 };
}
