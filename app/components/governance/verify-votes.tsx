/**
 * "Verify votes": reads the proposal's public receipts (GET /api/proposals/{id}/votes) and its published
 * results, checks every signature here in the browser (app/domain/vote-receipts.ts, the server's own rules),
 * recomputes the tally and shows any vote that does not check out. The checks run in a Web Worker
 * (verify-votes.worker.ts), so the page stays responsive over thousands of votes. Loaded on demand only
 * (React.lazy), so neither this nor the signature code is shipped to pages that do not open it.
 */
import { useEffect, useState } from "react";
import type { CatalogueIds } from "../../api/holdings.ts";
import type { ProposalDetail, VoteReceipts } from "../../api/proposals.ts";
import { countOf, formatNumber } from "../../domain/format.ts";
import type { VotesVerification } from "../../domain/vote-receipts.ts";
import { apiGet } from "../../lib/api.ts";
import { Alert, AlertDescription, AlertTitle } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { governancePaths } from "./paths.ts";
import type { VerifyVotesMessage, VerifyVotesRequest } from "./verify-votes.worker.ts";

type Progress = { checked: number; total: number };
type Outcome = { verification: VotesVerification; published: ProposalDetail; seconds: number };

/**
 * Checks `votes` in a worker of its own, reporting progress; the worker ends with the answer, or when `signal`
 * aborts (the dialog closed, a retry).
 */
function verifyInWorker(
  request: VerifyVotesRequest,
  onProgress: (progress: Progress) => void,
  signal: AbortSignal,
): Promise<VotesVerification> {
  const worker = new Worker(new URL("./verify-votes.worker.ts", import.meta.url), { type: "module" });
  return new Promise<VotesVerification>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(new Error("cancelled")));
    worker.onerror = (event) => reject(new Error(event.message || "The vote checker stopped"));
    worker.onmessage = ({ data }: MessageEvent<VerifyVotesMessage>) => {
      if (data.kind === "progress") onProgress({ checked: data.checked, total: data.total });
      else if (data.kind === "done") resolve(data.verification);
      else reject(new Error(data.message));
    };
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}

function useVerification(proposalId: number) {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const cancel = new AbortController();
    void (async () => {
      const [published, receipts, catalogue] = await Promise.all([
        apiGet<ProposalDetail>(governancePaths.proposal(proposalId)),
        apiGet<VoteReceipts>(governancePaths.votes(proposalId)),
        apiGet<CatalogueIds>(governancePaths.catalogue),
      ]);
      const started = performance.now();
      setProgress({ checked: 0, total: receipts.votes.length });
      const request: VerifyVotesRequest = { published, votes: receipts.votes, catalogue: catalogue.inscriptionIds };
      const verification = await verifyInWorker(request, (progress) => !cancel.signal.aborted && setProgress(progress), cancel.signal);
      if (!cancel.signal.aborted) setOutcome({ verification, published, seconds: (performance.now() - started) / 1000 });
    })().catch((failure: unknown) => {
      if (!cancel.signal.aborted) setError(failure instanceof Error ? failure : new Error(String(failure)));
    });
    return () => cancel.abort();
  }, [proposalId, attempt]);
  const retry = () => {
    setError(null);
    setProgress(null);
    setAttempt((count) => count + 1);
  };
  return { progress, outcome, error, retry };
}

export function VerifyVotes({ proposalId, onBack }: { proposalId: number; onBack: () => void }) {
  const { progress, outcome, error, retry } = useVerification(proposalId);
  return (
    <section aria-labelledby="verify-votes-title" className="flex min-w-0 flex-col gap-3" data-testid="verify-votes">
      <h3 id="verify-votes-title" className="text-base font-semibold text-zinc-50">
        Verify votes
      </h3>
      <p className="text-sm text-zinc-300">
        Every vote&apos;s signature is checked here, in your browser, against the{" "}
        <a className="underline" href={governancePaths.votes(proposalId)}>
          public receipts
        </a>{" "}
        (
        <a className="underline" href={`${governancePaths.votes(proposalId)}?format=csv`} download>
          CSV
        </a>
        ): each message must name this proposal, its title and the option counted, each item counted for a vote&apos;s power must be a
        catalogue item counted once, and the votes must add up to the published results.
      </p>
      {error ? (
        <LoadFailed what="the votes to verify" error={error} onRetry={retry} />
      ) : outcome ? (
        <VerificationResult outcome={outcome} />
      ) : (
        <p role="status" className="text-sm text-zinc-300" data-testid="verify-progress">
          {progress
            ? `Checking signatures: ${formatNumber(progress.checked)} of ${formatNumber(progress.total)}`
            : "Loading the receipts..."}
        </p>
      )}
      <Button variant="outline" size="sm" className="self-start" onClick={onBack}>
        Back to the proposal
      </Button>
    </section>
  );
}

function VerificationResult({ outcome }: { outcome: Outcome }) {
  const { verification, published, seconds } = outcome;
  const total = verification.checks.length;
  const optionText = new Map(published.options.map((option) => [option.id, option.optionText]));
  return (
    <div className="flex min-w-0 flex-col gap-3" data-testid="verify-result" data-seconds={seconds.toFixed(3)}>
      {verification.verified ? (
        <Alert variant="success">
          <AlertTitle>Verified</AlertTitle>
          <AlertDescription>
            {countOf(total, "vote")}: every signature and message checks out, and the tally matches the published results.
          </AlertDescription>
        </Alert>
      ) : (
        <Alert variant="destructive">
          <AlertTitle>Not verified</AlertTitle>
          <AlertDescription>
            {formatNumber(verification.failed.length)} of {countOf(total, "vote")} {verification.failed.length === 1 ? "does" : "do"} not
            check out
            {verification.tallyDifferences.length > 0 ? "; the tally differs from the published results" : ""}.
          </AlertDescription>
        </Alert>
      )}
      <table className="w-full text-left text-sm text-zinc-300">
        <caption className="sr-only">Tally recomputed from the receipts beside the published results</caption>
        <thead>
          <tr className="text-xs text-zinc-400">
            <th scope="col">Option</th>
            <th scope="col" className="text-right">
              Receipts
            </th>
            <th scope="col" className="text-right">
              Published
            </th>
          </tr>
        </thead>
        <tbody>
          {verification.tally.options.map((option) => (
            <tr key={option.id}>
              <th scope="row" className="font-normal">
                {optionText.get(option.id) ?? `Option ${option.id}`}
              </th>
              <td className="text-right tabular-nums">{formatNumber(option.voteCount)}</td>
              <td className="text-right tabular-nums">
                {formatNumber(published.options.find((published) => published.id === option.id)?.voteCount ?? 0)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {verification.tallyDifferences.length > 0 && (
        <ul className="list-disc pl-5 text-sm text-red-200" data-testid="tally-differences">
          {verification.tallyDifferences.map((difference) => (
            <li key={difference}>{difference}</li>
          ))}
        </ul>
      )}
      {verification.failed.length > 0 && (
        <ol
          className="flex max-h-64 flex-col gap-2 overflow-y-auto text-sm"
          aria-label="Votes that do not check out"
          data-testid="failed-votes"
        >
          {verification.failed.map((check) => (
            <li key={check.index} className="rounded-md border border-red-500/40 bg-red-500/10 px-3 py-2 text-red-100">
              <p className="font-mono text-xs break-all">
                Vote {check.index + 1}: {check.address}
              </p>
              <ul className="mt-1 list-disc pl-5">
                {check.problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
      <p className="text-xs text-zinc-400">
        Checked {countOf(total, "signature")} in {seconds.toFixed(1)} s. Voting power is each wallet&apos;s staked items at the
        proposal&apos;s start, as listed in its receipt.
      </p>
    </div>
  );
}
