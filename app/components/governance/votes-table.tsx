/**
 * A proposal's votes as a table (address, option, power, time, verified) from its public receipts
 * (GET /api/proposals/{id}/votes). The ✓ is the browser's own check of each vote (app/domain/vote-receipts.ts,
 * the rules "Verify votes" applies: the wallet's signature over a message naming this proposal, its title
 * and the option counted, signed within 10 minutes of being recorded, power equal to its distinct items,
 * no item counted twice). Loaded on demand (React.lazy) with the signature code.
 */
import { useEffect, useState } from "react";
import type { VoteReceipts } from "../../api/proposals.ts";
import { formatNumber, shortenAddress } from "../../domain/format.ts";
import { verifyVotes, type PublishedResults, type VoteCheck } from "../../domain/vote-receipts.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { LoadFailed } from "../ui/load-failed.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import { TableHead } from "../ui/table.tsx";
import { DateText } from "./date-text.tsx";
import { governancePaths } from "./paths.ts";
import type { ProposalDetailView } from "./types.ts";

/** A cell: a table cell on wider screens, a "Label  value" row of its vote's block on a phone. */
const CELL =
  "px-3 py-2 max-sm:flex max-sm:justify-between max-sm:gap-3 max-sm:py-0.5 max-sm:text-right " +
  "max-sm:before:shrink-0 max-sm:before:text-left max-sm:before:font-sans max-sm:before:text-xs max-sm:before:text-zinc-500 " +
  "max-sm:before:content-[attr(data-label)]";

const nextFrame = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

function usePerVoteChecks(published: ProposalDetailView | null, receipts: VoteReceipts | undefined) {
  // The checks of one answer: a newer answer shows "Checking…" until its own are done.
  const [checked, setChecked] = useState<{ receipts: VoteReceipts; checks: VoteCheck[] } | null>(null);
  useEffect(() => {
    if (!published || !receipts) return;
    let cancelled = false;
    const results: PublishedResults = { ...published, startDate: iso(published.startDate), endDate: iso(published.endDate) };
    void verifyVotes(results, receipts.votes, {
      batchSize: 50,
      pause: () => (cancelled ? Promise.reject(new Error("cancelled")) : nextFrame()),
    })
      .then((verification) => !cancelled && setChecked({ receipts, checks: verification.checks }))
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [published, receipts]);
  return checked && checked.receipts === receipts ? checked.checks : null;
}

function Verified({ check }: { check: VoteCheck | undefined }) {
  if (!check) return <span className="text-zinc-500">Checking…</span>;
  if (check.problems.length === 0) {
    return (
      <span className="font-semibold text-emerald-300" title="Signature and message check out">
        <span aria-hidden>✓</span>
        <span className="sr-only">Verified</span>
      </span>
    );
  }
  return (
    <span className="font-semibold text-red-300" title={check.problems.join("; ")}>
      <span aria-hidden>✗</span> <span className="sr-only">Not verified:</span>
      <span className="text-xs font-normal">{check.problems[0]}</span>
    </span>
  );
}

export function VotesTable({
  proposalId,
  published,
  address,
}: {
  proposalId: number;
  /** The proposal's published results (what each vote's message is checked against). */
  published: ProposalDetailView | null;
  /** The connected wallet: its row is marked. */
  address: string | null;
}) {
  const receipts = useApiQuery<VoteReceipts>(governancePaths.votes(proposalId));
  const checks = usePerVoteChecks(published, receipts.data);

  let content: React.ReactNode;
  if (receipts.isError && !receipts.data) {
    content = <LoadFailed what="the votes" error={receipts.error} onRetry={receipts.refetch} retrying={receipts.isFetching} />;
  } else if (!receipts.data) {
    content = <Skeleton className="h-20 w-full" />;
  } else if (receipts.data.votes.length === 0) {
    content = <p className="text-sm text-zinc-400">No votes yet.</p>;
  } else {
    content = (
      <div className="max-h-72 overflow-auto rounded-lg border border-zinc-800">
        {/* On a phone each vote is a block of labelled rows, not a table wider than the screen (issue 33, item 6). */}
        <table className="w-full text-left text-sm text-zinc-300 max-sm:block" data-testid="votes-table">
          <caption className="sr-only">Every vote on this proposal, oldest first</caption>
          <TableHead
            className="sticky top-0 bg-zinc-900 text-xs text-zinc-400 max-sm:sr-only"
            cellClassName="px-3 py-2 font-medium"
            columns={["Address", "Option", { header: "Power", className: "text-right" }, "Time", "Verified"]}
          />
          <tbody className="divide-y divide-zinc-800/70 max-sm:block">
            {receipts.data.votes.map((vote, index) => (
              <tr key={`${vote.address}-${index}`} className="max-sm:block max-sm:py-2" data-testid="vote-row">
                <td className={`${CELL} font-mono text-xs whitespace-nowrap`} data-label="Address" title={vote.address}>
                  {shortenAddress(vote.address, 6, 4)}
                  {vote.address === address && <span className="ml-1 font-sans text-violet-300">(you)</span>}
                </td>
                <td className={`${CELL} wrap-anywhere`} data-label="Option">
                  {vote.optionText}
                  {vote.supersededBy !== null && <span className="ml-1 text-xs text-zinc-500">(replaced by a later vote)</span>}
                </td>
                <td className={`${CELL} text-right tabular-nums`} data-label="Power">
                  {formatNumber(vote.votingPower)}
                </td>
                <td className={`${CELL} text-xs whitespace-nowrap`} data-label="Time">
                  <DateText value={vote.votedAt} withTime />
                </td>
                <td className={CELL} data-label="Verified">
                  <Verified check={checks?.[index]} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  return (
    <section aria-labelledby={`proposal-${proposalId}-votes`} className="flex min-w-0 flex-col gap-2">
      <h3 id={`proposal-${proposalId}-votes`} className="text-base font-semibold text-zinc-50">
        Votes
      </h3>
      {content}
    </section>
  );
}
