/**
 * A proposal's details (its own address, /governance/{id}): status, voting window, unique voters and total
 * votes, description, then by state — already voted (with results), completed (results), upcoming, not
 * connected, no voting power, or the vote form — the holder's snapshot voting power, and the votes table.
 * A vote signed but not submitted is not lost silently: leaving asks first.
 */
import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { useBlocker } from "react-router";
import { formatNumber } from "../../domain/format.ts";
import { LIVE_REFRESH, queryKeyOf, useApiQuery } from "../../lib/queries.ts";
import { useWallet } from "../../wallet/wallet-context.tsx";
import { Alert, AlertDescription, AlertTitle } from "../ui/alert.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { LoadFailed } from "../ui/load-failed.tsx";
import { OpenedOnce } from "../ui/opened-once.tsx";
import { Skeleton } from "../ui/skeleton.tsx";
import { DateText } from "./date-text.tsx";
import { governancePaths } from "./paths.ts";
import { ResultsChart } from "./results-chart.tsx";
import { outcomeText, quorumRuleText, quorumStatusText, voteChangeText } from "./rules.ts";
import { StatusBadge } from "./status-badge.tsx";
import { VOTE_TYPE_LABELS, type ProposalDetailView, type ProposalView, type UserVoteView } from "./types.ts";
import { useVote, useVotingPower } from "./use-vote.ts";
import { VoteForm } from "./vote-form.tsx";

// The signature checks load only when a holder asks for them (no code added to the pages' first load).
const VerifyVotes = lazy(() => import("./verify-votes.tsx").then((module) => ({ default: module.VerifyVotes })));
const VotesTable = lazy(() => import("./votes-table.tsx").then((module) => ({ default: module.VotesTable })));

export const LEAVE_UNSUBMITTED = {
  title: "Leave without submitting your vote?",
  description: "You signed your vote but did not submit it: it is not recorded until you press Submit Vote.",
  confirm: "Leave without voting",
  cancel: "Keep voting",
} as const;

/**
 * The proposal's details in a dialog. Closing it (✕, Escape, outside click) or leaving the page any other
 * way while a signed vote waits for "Submit Vote" asks first (a route blocker, and the browser's own prompt
 * on reload or tab close).
 */
export function ProposalDialog({ proposal, onClose }: { proposal: ProposalView; onClose: () => void }) {
  const [unsubmitted, setUnsubmitted] = useState(false);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => unsubmitted && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (!unsubmitted) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsubmitted]);
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-2xl">
        <ProposalDetails key={proposal.id} proposal={proposal} onUnsubmittedChange={setUnsubmitted} />
      </DialogContent>
      <ConfirmDialog
        open={blocker.state === "blocked"}
        onOpenChange={(open) => !open && blocker.state === "blocked" && blocker.reset()}
        title={LEAVE_UNSUBMITTED.title}
        description={LEAVE_UNSUBMITTED.description}
        confirmLabel={LEAVE_UNSUBMITTED.confirm}
        cancelLabel={LEAVE_UNSUBMITTED.cancel}
        destructive
        onConfirm={() => blocker.state === "blocked" && blocker.proceed()}
      />
    </Dialog>
  );
}

function Stat({ label, value }: { label: string; value: number | undefined }) {
  return (
    <div className="rounded-lg border border-zinc-800 bg-zinc-900/70 px-3 py-2">
      <dt className="text-xs text-zinc-400">{label}</dt>
      <dd className="text-lg font-semibold text-zinc-50 tabular-nums">
        {value === undefined ? <Skeleton className="mt-1 h-5 w-10" /> : formatNumber(value)}
      </dd>
    </div>
  );
}

/** Whether a vote can change, the quorum (with what it asks for, once counted) and, once ended, the outcome. */
function ProposalRules({ proposal, detail, ended }: { proposal: ProposalView; detail: ProposalDetailView | null; ended: boolean }) {
  const rows: [string, string, string][] = [
    ["Votes", voteChangeText(proposal.allowVoteChange), "proposal-vote-change"],
    [
      "Quorum",
      detail ? quorumStatusText(detail.quorumStatus, detail.quorumMet, ended) : quorumRuleText(proposal.quorum),
      "proposal-quorum",
    ],
  ];
  if (ended && detail?.outcome) rows.push(["Outcome", outcomeText(detail.outcome), "proposal-outcome"]);
  return (
    <dl className="grid gap-1 text-sm" data-testid="proposal-rules">
      {rows.map(([label, text, testId]) => (
        <div key={label} className="flex gap-1.5">
          <dt className="shrink-0 text-zinc-400">{label}</dt>
          <dd className="min-w-0 wrap-anywhere text-zinc-100" data-testid={testId}>
            {text}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function ProposalDetails({
  proposal,
  onUnsubmittedChange,
}: {
  proposal: ProposalView;
  /** True while a vote is signed and not yet submitted. */
  onUnsubmittedChange: (unsubmitted: boolean) => void;
}) {
  const wallet = useWallet();
  const address = wallet.connected ? wallet.address : null;

  const queryClient = useQueryClient();
  // Issue 27, rule 3: votes and results stay true while the dialog is open.
  const detail = useApiQuery<ProposalDetailView>(governancePaths.proposal(proposal.id), LIVE_REFRESH);
  const votes = useApiQuery<UserVoteView[]>(address ? governancePaths.userVotes(address) : null);
  const power = useVotingPower(address, proposal.id);

  const current = detail.data ?? null;
  // The page gives the status at the clock's time (it flips at the start and the end); the server's copy may be older.
  const status = proposal.status;
  // When voting opens or closes the results and the snapshot power are read again.
  const { refetch: refetchDetail } = detail;
  const { refetch: refetchPower } = power;
  const seenStatus = useRef(status);
  useEffect(() => {
    if (status === seenStatus.current) return;
    seenStatus.current = status;
    void refetchDetail();
    if (address) void refetchPower();
  }, [status, address, refetchDetail, refetchPower]);
  const options = current?.options ?? proposal.options.map((option) => ({ ...option, voteCount: 0 }));
  const userVote = votes.data?.find((vote) => vote.proposalId === proposal.id) ?? null;

  // Issue 26, item 4: on a proposal with allowVoteChange the holder may vote again while it is active.
  const [changing, setChanging] = useState(false);
  // A vote's answer closes the form it was signed in once the reads it changed are back, not a form the holder
  // opened again meanwhile ("Change vote" while the votes table was still on its way, as a slow network has it).
  const formsOpened = useRef(0);
  const startChanging = () => {
    formsOpened.current += 1;
    setChanging(true);
  };
  const vote = useVote({
    proposal,
    onVoted: async () => {
      const opened = formsOpened.current;
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeyOf(governancePaths.proposal(proposal.id)) }),
        address ? queryClient.invalidateQueries({ queryKey: queryKeyOf(governancePaths.userVotes(address)) }) : undefined,
        queryClient.invalidateQueries({ queryKey: queryKeyOf(governancePaths.votes(proposal.id)) }),
      ]);
      if (formsOpened.current === opened) setChanging(false);
    },
  });
  const canChangeVote = proposal.allowVoteChange && status === "active" && address !== null && (power.power ?? 0) > 0;

  const unsubmitted = vote.signed && vote.phase === "signed";
  useEffect(() => onUnsubmittedChange(unsubmitted), [unsubmitted, onUnsubmittedChange]);

  const [verifying, setVerifying] = useState(false);
  const loading = (detail.isLoading && !current) || (address !== null && ((votes.isLoading && !votes.data) || power.loading));

  // DECISIONS: a proposal's voting power is the wallet's staked count at the proposal's start (a snapshot).
  const snapshotNote =
    status === "upcoming" ? (
      <>
        For this proposal: the Spooks you have staked now; it counts those staked when its voting opens (
        <DateText value={proposal.startDate} withTime />
        ).
      </>
    ) : (
      <>
        For this proposal: the Spooks you had staked when its voting opened (
        <DateText value={power.snapshotAt ?? proposal.startDate} withTime />
        ).
      </>
    );
  // The power this proposal counts, where the vote form (which has its own line) is not shown.
  const powerLine =
    address !== null && power.power !== null ? (
      <div className="rounded-lg border border-violet-500/20 bg-violet-500/5 px-3 py-2 text-sm" data-testid="proposal-power">
        <p className="text-zinc-300">
          Your voting power on this proposal:{" "}
          <span className="font-semibold text-violet-200 tabular-nums">{formatNumber(power.power)}</span>
        </p>
        <p className="text-xs text-zinc-400">{snapshotNote}</p>
      </div>
    ) : null;

  // A load that failed says so (with a retry) instead of showing a proposal with no votes or no power.
  const failed = [
    { what: "this proposal", query: detail, failed: detail.isError && !current },
    { what: "your votes", query: votes, failed: votes.isError && !votes.data },
    {
      what: "your voting power",
      query: { error: power.error, refetch: power.refetch, isFetching: power.retrying },
      failed: power.error !== null,
    },
  ].find((view) => view.failed);

  const voteForm = (
    <VoteForm
      proposal={{ id: proposal.id, title: proposal.title }}
      options={options}
      vote={vote}
      votingPower={power.power ?? 0}
      powerNote={snapshotNote}
    />
  );
  let body: React.ReactNode;
  if (failed) {
    body = <LoadFailed what={failed.what} error={failed.query.error} onRetry={failed.query.refetch} retrying={failed.query.isFetching} />;
  } else if (loading) {
    body = (
      <div className="grid gap-3" aria-busy="true">
        <Skeleton className="h-16 w-full" />
        <Skeleton className="h-12 w-full" />
        <Skeleton className="h-12 w-full" />
      </div>
    );
  } else if (userVote) {
    const chosen = options.find((option) => option.id === userVote.optionId);
    const keepVote = () => {
      vote.reset();
      setChanging(false);
    };
    body = (
      <div className="flex min-w-0 flex-col gap-4">
        <Alert variant="success">
          <AlertTitle>You've already voted</AlertTitle>
          <AlertDescription>
            <p>{chosen ? `You voted for option: ${chosen.optionText}` : "Unknown option"}</p>
            {canChangeVote && <p className="mt-1">You can change it until voting ends: your latest signed vote counts.</p>}
          </AlertDescription>
        </Alert>
        {canChangeVote && changing ? (
          <>
            {voteForm}
            <Button variant="ghost" size="sm" className="self-start" onClick={keepVote} disabled={vote.phase === "submitting"}>
              Keep my vote
            </Button>
          </>
        ) : (
          <>
            {canChangeVote && (
              <Button variant="outline" size="sm" className="self-start" onClick={startChanging}>
                Change vote
              </Button>
            )}
            {powerLine}
            <ResultsChart options={options} totalVotes={current?.totalVotes ?? 0} userOptionId={userVote.optionId} />
          </>
        )}
      </div>
    );
  } else if (status === "completed") {
    body = (
      <div className="flex min-w-0 flex-col gap-4">
        <Alert>
          <AlertTitle>Voting has ended</AlertTitle>
          <AlertDescription>This proposal is now closed for voting.</AlertDescription>
        </Alert>
        {powerLine}
        <ResultsChart options={options} totalVotes={current?.totalVotes ?? 0} />
      </div>
    );
  } else if (status === "upcoming") {
    body = (
      <div className="flex min-w-0 flex-col gap-4">
        <Alert variant="warning">
          <AlertTitle>Voting hasn't started yet</AlertTitle>
          <AlertDescription>
            Voting opens on <DateText value={proposal.startDate} withTime />.
          </AlertDescription>
        </Alert>
        {powerLine}
      </div>
    );
  } else if (!address) {
    body = (
      <Alert>
        <AlertTitle>Connect wallet to vote</AlertTitle>
        <AlertDescription className="mt-2 flex flex-wrap items-center justify-between gap-3">
          <span>Connect the wallet that holds your staked Spooks.</span>
          {wallet.hasExtension && (
            <Button size="sm" onClick={() => void wallet.connect()} disabled={wallet.loading}>
              Connect Wallet
            </Button>
          )}
        </AlertDescription>
      </Alert>
    );
  } else if (power.power === null || power.power <= 0) {
    body = (
      <Alert variant="warning">
        <AlertTitle>No voting power</AlertTitle>
        <AlertDescription>
          <p>You need to have Spooks staked to participate in governance votes.</p>
          <p className="mt-1" data-testid="proposal-power-note">
            {snapshotNote}
          </p>
        </AlertDescription>
      </Alert>
    );
  } else {
    body = voteForm;
  }

  return (
    <>
      <DialogHeader>
        <div className="flex flex-wrap items-center gap-2">
          <StatusBadge status={status} />
          <Badge variant="outline">{VOTE_TYPE_LABELS[proposal.voteType]}</Badge>
        </div>
        <DialogTitle className="mt-1 wrap-anywhere">{proposal.title}</DialogTitle>
        <DialogDescription>
          <DateText value={proposal.startDate} /> – <DateText value={proposal.endDate} />
        </DialogDescription>
      </DialogHeader>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-2" data-testid="proposal-window">
        <div className="flex gap-1.5">
          <dt className="text-zinc-400">Starts</dt>
          <dd className="text-zinc-100">
            <DateText value={proposal.startDate} withTime />
          </dd>
        </div>
        <div className="flex gap-1.5">
          <dt className="text-zinc-400">Ends</dt>
          <dd className="text-zinc-100">
            <DateText value={proposal.endDate} withTime />
          </dd>
        </div>
      </dl>
      <dl className="grid grid-cols-2 gap-3">
        <Stat label="Unique voters" value={current?.uniqueVoters} />
        <Stat label="Total votes" value={current?.totalVotes} />
      </dl>
      <ProposalRules proposal={proposal} detail={current} ended={status === "completed"} />
      <p className="text-sm wrap-anywhere whitespace-pre-line text-zinc-300">{proposal.description}</p>
      {verifying ? (
        <OpenedOnce open>
          <VerifyVotes proposalId={proposal.id} onBack={() => setVerifying(false)} />
        </OpenedOnce>
      ) : (
        <>
          {body}
          {status !== "upcoming" && (
            <>
              <Suspense fallback={<Skeleton className="h-24 w-full" />}>
                <VotesTable proposalId={proposal.id} published={current} address={address} />
              </Suspense>
              <Button variant="outline" size="sm" className="self-start" onClick={() => setVerifying(true)}>
                Verify votes
              </Button>
            </>
          )}
        </>
      )}
    </>
  );
}
