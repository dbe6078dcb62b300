import { RadioGroup } from "radix-ui";
import { formatNumber } from "../../domain/format.ts";
import { Button, Spinner } from "../ui/button.tsx";
import { SignedMessage } from "../ui/signed-message.tsx";
import type { useVote } from "./use-vote.ts";

type Vote = ReturnType<typeof useVote>;

/** The option list and the two-step 'Sign and Vote' → 'Submit Vote' flow. */
/** What a vote message names, in words: the proposal and the option's text ("Option: Yes"). */
export function voteMeaning(proposal: { id: number; title: string }, option: { optionText: string } | undefined): string[] {
  return [`Proposal #${proposal.id}: ${proposal.title}`, `Option: ${option?.optionText ?? "Unknown option"}`];
}

export function VoteForm({
  proposal,
  options,
  vote,
  votingPower,
  powerNote,
}: {
  proposal: { id: number; title: string };
  options: { id: number; optionText: string }[];
  vote: Vote;
  votingPower: number;
  /** What the voting power counts (the proposal's snapshot), under 'Your voting power: N'. */
  powerNote?: React.ReactNode;
}) {
  const busy = vote.phase === "signing" || vote.phase === "submitting";
  const proposalId = proposal.id;
  const labelId = `proposal-${proposalId}-options`;
  const chosen = options.find((option) => option.id === vote.selected);
  return (
    <div className="flex min-w-0 flex-col gap-4">
      <p id={labelId} className="text-sm font-medium text-zinc-200">
        Choose an option
      </p>
      <RadioGroup.Root
        aria-labelledby={labelId}
        value={vote.selected === null ? "" : String(vote.selected)}
        onValueChange={(value) => vote.choose(Number(value))}
        disabled={busy}
        className="grid gap-2"
      >
        {options.map((option) => {
          const id = `proposal-${proposalId}-option-${option.id}`;
          return (
            <label
              key={option.id}
              htmlFor={id}
              className="flex cursor-pointer items-center gap-3 rounded-lg border border-zinc-800 bg-zinc-900/70 px-4 py-3 text-sm text-zinc-100 transition-colors hover:border-violet-500/50 has-[[data-state=checked]]:border-violet-500 has-[[data-state=checked]]:bg-violet-500/10"
            >
              <RadioGroup.Item
                id={id}
                value={String(option.id)}
                className="grid size-5 shrink-0 cursor-pointer place-items-center rounded-full border-2 border-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-400 data-[state=checked]:border-violet-400"
              >
                <RadioGroup.Indicator className="size-2.5 rounded-full bg-violet-400" />
              </RadioGroup.Item>
              <span className="min-w-0 flex-1 wrap-anywhere">{option.optionText}</span>
            </label>
          );
        })}
      </RadioGroup.Root>

      {vote.message && vote.selected !== null && (
        <SignedMessage
          testId="vote-message"
          label={vote.signed ? "Message signed" : "Message to sign"}
          message={vote.message}
          meaning={voteMeaning(proposal, chosen)}
        />
      )}

      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="min-w-0">
          <p className="text-sm text-zinc-400">
            Your voting power: <span className="font-semibold text-violet-200 tabular-nums">{formatNumber(votingPower)}</span>
          </p>
          {powerNote && (
            <p className="text-xs text-zinc-400" data-testid="proposal-power-note">
              {powerNote}
            </p>
          )}
        </div>
        {vote.signed || vote.phase === "submitting" ? (
          <Button variant="success" onClick={() => void vote.submit()} disabled={busy}>
            {vote.phase === "submitting" ? (
              <>
                <Spinner label="Submitting" /> Submitting Vote...
              </>
            ) : (
              "Submit Vote"
            )}
          </Button>
        ) : (
          <Button onClick={() => void vote.sign()} disabled={busy}>
            {vote.phase === "signing" ? (
              <>
                <Spinner label="Signing" /> Signing...
              </>
            ) : (
              "Sign and Vote"
            )}
          </Button>
        )}
      </div>
      {vote.signed && vote.phase === "signed" && <p className="text-xs text-emerald-300">Message signed. Submit your vote to record it.</p>}
    </div>
  );
}
