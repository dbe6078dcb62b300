/** Governance: the create-proposal form (vote type, options) and the proposals list with Delete. */
import { getFormProps, getInputProps, getTextareaProps } from "@conform-to/react";
import { useCallback, useRef, useState } from "react";
import { countOf } from "../../domain/format.ts";
import { YES_NO_OPTIONS, type ProposalStatus, type VoteType } from "../../domain/governance.ts";
import { DateText } from "../governance/date-text.tsx";
import { StatusBadge } from "../governance/status-badge.tsx";
import { VOTE_TYPE_LABELS } from "../governance/types.ts";
import { PlusIcon } from "../icons.tsx";
import { ConfirmDialog } from "../ui/alert-dialog.tsx";
import { useAdminRole } from "./role-context.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { Input, Label } from "../ui/input.tsx";
import { FieldError, FormField, selectClasses, textareaClasses } from "./form-field.tsx";
import { DateField, useLocalDate } from "./local-date-input.tsx";
import { createProposalConstraintSchema, createProposalFormSchema, deleteProposalFormSchema, startProposalFormSchema } from "./schemas.ts";
import { useAdminForm } from "./use-admin-form.ts";

export type AdminProposal = {
  id: number;
  title: string;
  startDate: Date | string;
  endDate: Date | string;
  status: ProposalStatus;
  voteType: VoteType;
  options: { id: number; optionText: string }[];
};

type Auth = { onUnauthorized: () => void };

const DELETE_CONFIRM = "Are you sure you want to delete this proposal? This action cannot be undone.";

/** Options as the form holds them: Yes/No for yes_no; switching to multiple choice starts empty. */
function useOptions() {
  const [voteType, setVoteType] = useState<VoteType>("yes_no");
  const [options, setOptions] = useState<string[]>([...YES_NO_OPTIONS]);
  const [draft, setDraft] = useState("");
  return {
    voteType,
    options,
    draft,
    setDraft,
    changeType(next: VoteType) {
      setVoteType(next);
      setOptions(next === "yes_no" ? [...YES_NO_OPTIONS] : []);
      setDraft("");
    },
    /** Added text is trimmed; a blank one is ignored. */
    add() {
      const text = draft.trim();
      if (text) setOptions((current) => [...current, text]);
      setDraft("");
    },
    remove(index: number) {
      setOptions((current) => current.filter((_, i) => i !== index));
    },
    reset() {
      setVoteType("yes_no");
      setOptions([...YES_NO_OPTIONS]);
      setDraft("");
    },
  };
}

type QuorumChoice = "none" | "power" | "percent";

function CreateProposalForm({ onUnauthorized }: Auth) {
  const start = useLocalDate();
  const end = useLocalDate();
  const options = useOptions();
  // The proposal's rules the API already takes (issue 33, item 7): votes that can change, and a quorum.
  const [quorum, setQuorum] = useState<QuorumChoice>("none");
  const reset = useCallback(() => {
    start.reset();
    end.reset();
    options.reset();
    setQuorum("none");
  }, [start, end, options]);
  const { form, fields, busy } = useAdminForm({
    id: "create-proposal",
    schema: createProposalFormSchema,
    constraintSchema: createProposalConstraintSchema,
    // What a reset after success restores (the vote type select and the Yes/No options it shows).
    defaultValue: { voteType: "yes_no", options: [...YES_NO_OPTIONS] },
    onSuccess: reset,
    onUnauthorized,
  });
  const draftId = `${form.id}-new-option`;
  const { can } = useAdminRole();
  const quorumFields = fields.quorum.getFieldset();

  return (
    <Card hidden={!can("proposals")}>
      <CardHeader>
        <CardTitle>Create Proposal</CardTitle>
        <CardDescription>Holders vote with the Spooks they had staked when voting opens.</CardDescription>
      </CardHeader>
      <CardContent>
        <form method="post" {...getFormProps(form)} className="grid grid-cols-1 gap-4">
          <input type="hidden" name="intent" value="create-proposal" />
          <FormField label="Title" field={fields.title}>
            <Input {...getInputProps(fields.title, { type: "text" })} placeholder="Fund a Spooky community event" />
          </FormField>
          <FormField label="Description" field={fields.description}>
            <textarea {...getTextareaProps(fields.description)} className={textareaClasses} placeholder="What is proposed, and why." />
          </FormField>
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-1 2xl:grid-cols-2">
            <DateField label="Start Date" field={fields.startDate} date={start} />
            <DateField label="End Date" field={fields.endDate} date={end} />
          </div>
          <FormField label="Vote Type" field={fields.voteType}>
            <select
              id={fields.voteType.id}
              name={fields.voteType.name}
              value={options.voteType}
              onChange={(event) => options.changeType(event.target.value as VoteType)}
              className={selectClasses}
            >
              <option value="yes_no">Yes/No (yes_no)</option>
              <option value="multiple_choice">Multiple Choice (multiple_choice)</option>
            </select>
          </FormField>

          <fieldset className="grid grid-cols-1 gap-2" aria-describedby={fields.options.errorId}>
            <legend className="mb-1.5 text-sm font-medium text-zinc-300">Options</legend>
            <ul className="grid grid-cols-1 gap-2" aria-label="Options">
              {options.options.map((option, index) => (
                <li
                  key={`${index}-${option}`}
                  className="flex items-center gap-2 rounded-lg border border-zinc-800 bg-zinc-900/70 px-3 py-2 text-sm"
                >
                  <span className="grid size-6 shrink-0 place-items-center rounded-full bg-violet-600/25 text-xs text-violet-200">
                    {index + 1}
                  </span>
                  <span className="min-w-0 flex-1 wrap-anywhere text-zinc-100">{option}</span>
                  {options.voteType === "multiple_choice" && (
                    <Button size="sm" variant="ghost" onClick={() => options.remove(index)} aria-label={`Remove option ${option}`}>
                      Remove
                    </Button>
                  )}
                  <input type="hidden" name={`${fields.options.name}[${index}]`} value={option} />
                </li>
              ))}
            </ul>
            {options.voteType === "multiple_choice" && (
              <div className="flex gap-2">
                <label htmlFor={draftId} className="sr-only">
                  New option
                </label>
                <Input
                  id={draftId}
                  value={options.draft}
                  onChange={(event) => options.setDraft(event.target.value)}
                  onKeyDown={(event) => {
                    if (event.key === "Enter") {
                      event.preventDefault();
                      options.add();
                    }
                  }}
                  placeholder="Add an option"
                />
                <Button variant="secondary" onClick={() => options.add()}>
                  <PlusIcon className="h-4 w-4" /> Add Option
                </Button>
              </div>
            )}
            <FieldError field={fields.options} />
          </fieldset>

          <div className="grid gap-1.5">
            <label className="flex items-center gap-2 text-sm text-zinc-200" htmlFor={fields.allowVoteChange.id}>
              <input
                type="checkbox"
                id={fields.allowVoteChange.id}
                name={fields.allowVoteChange.name}
                value="on"
                className="size-4 accent-violet-500"
                aria-describedby={`${fields.allowVoteChange.id}-hint`}
              />
              Allow vote changes
            </label>
            <p id={`${fields.allowVoteChange.id}-hint`} className="text-xs text-zinc-400">
              A wallet may vote again until voting ends; its latest signed vote counts. Off: one vote per wallet.
            </p>
          </div>

          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-1 2xl:grid-cols-2">
            <div className="grid content-start gap-1.5">
              <Label htmlFor={`${form.id}-quorum`}>Quorum</Label>
              <select
                id={`${form.id}-quorum`}
                value={quorum}
                onChange={(event) => setQuorum(event.target.value as QuorumChoice)}
                className={selectClasses}
              >
                <option value="none">None</option>
                <option value="power">Voting power cast (at least N)</option>
                <option value="percent">Percent of the power staked at the start</option>
              </select>
            </div>
            {quorum !== "none" && (
              <FormField
                label={quorum === "power" ? "Quorum: voting power" : "Quorum: percent"}
                field={quorumFields.value}
                hint={
                  quorum === "power"
                    ? "At least this much voting power must be cast, or the proposal fails for want of quorum."
                    : "At least this percent (1-100) of the power staked at its start must be cast."
                }
              >
                <input type="hidden" name={quorumFields.kind.name} value={quorum} />
                <Input
                  {...getInputProps(quorumFields.value, { type: "number" })}
                  min={1}
                  max={quorum === "percent" ? 100 : undefined}
                  step={1}
                  placeholder={quorum === "power" ? "10" : "20"}
                />
              </FormField>
            )}
          </div>

          <div className="flex justify-end">
            <Button type="submit" disabled={busy}>
              {busy && <Spinner />} {busy ? "Creating..." : "Create Proposal"}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function ProposalRow({ proposal, onUnauthorized }: { proposal: AdminProposal } & Auth) {
  const [confirming, setConfirming] = useState<"delete" | "start" | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const startRef = useRef<HTMLFormElement>(null);
  const remove = useAdminForm({ id: `delete-proposal-${proposal.id}`, schema: deleteProposalFormSchema, onUnauthorized });
  const start = useAdminForm({ id: `start-proposal-${proposal.id}`, schema: startProposalFormSchema, onUnauthorized });
  const { can } = useAdminRole();
  return (
    <li className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center" data-testid="admin-proposal">
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <h4 className="font-semibold wrap-anywhere text-zinc-50">{proposal.title}</h4>
          <StatusBadge status={proposal.status} />
          <Badge variant="outline">{VOTE_TYPE_LABELS[proposal.voteType]}</Badge>
        </div>
        <p className="mt-1 text-xs text-zinc-400">
          <DateText value={proposal.startDate} withTime /> – <DateText value={proposal.endDate} withTime />
        </p>
        <p className="mt-1 text-xs wrap-anywhere text-zinc-400">{proposal.options.map((option) => option.optionText).join(" · ")}</p>
      </div>
      <div className="flex flex-wrap gap-2" hidden={!can("proposals")}>
        {proposal.status === "upcoming" && (
          <form ref={startRef} method="post" {...getFormProps(start.form)}>
            <input type="hidden" name="intent" value="start-proposal" />
            <input type="hidden" name="proposalId" value={proposal.id} />
            <Button size="sm" variant="success" onClick={() => setConfirming("start")} disabled={start.busy}>
              {start.busy && <Spinner className="h-3 w-3" />} Start Now
            </Button>
          </form>
        )}
        <form ref={formRef} method="post" {...getFormProps(remove.form)}>
          <input type="hidden" name="intent" value="delete-proposal" />
          <input type="hidden" name="proposalId" value={proposal.id} />
          <Button size="sm" variant="destructive" onClick={() => setConfirming("delete")} disabled={remove.busy}>
            {remove.busy && <Spinner className="h-3 w-3" />} Delete
          </Button>
        </form>
      </div>
      <ConfirmDialog
        open={confirming === "start"}
        onOpenChange={(open) => !open && setConfirming(null)}
        title="Start voting now?"
        description={`Voting on "${proposal.title}" opens now instead of at its start date; its voting power is counted from the Spooks staked now.`}
        confirmLabel="Start Now"
        onConfirm={() => startRef.current?.requestSubmit()}
      />
      <ConfirmDialog
        open={confirming === "delete"}
        onOpenChange={(open) => !open && setConfirming(null)}
        title="Delete proposal?"
        description={DELETE_CONFIRM}
        confirmLabel="Delete"
        destructive
        onConfirm={() => formRef.current?.requestSubmit()}
      />
    </li>
  );
}

export function ProposalsTab({ proposals, onUnauthorized }: { proposals: AdminProposal[] } & Auth) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
      <h2 className="sr-only lg:col-span-2">Governance</h2>
      <CreateProposalForm onUnauthorized={onUnauthorized} />
      <Card className="self-start">
        <CardHeader>
          <CardTitle>Proposals</CardTitle>
          <CardDescription>{countOf(proposals.length, "proposal")}</CardDescription>
        </CardHeader>
        {proposals.length === 0 ? (
          <CardContent>
            <p className="rounded-lg border border-dashed border-zinc-800 px-4 py-10 text-center text-zinc-400">
              No proposals found. Create your first proposal.
            </p>
          </CardContent>
        ) : (
          <ul className="divide-y divide-zinc-800/70 border-t border-zinc-800/70">
            {proposals.map((proposal) => (
              <ProposalRow key={proposal.id} proposal={proposal} onUnauthorized={onUnauthorized} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
