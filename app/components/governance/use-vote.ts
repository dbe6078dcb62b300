/**
 * The vote flow of the details dialog: idle → signing → signed → submitting → (success resets) or back
 * to a retryable state on error. The signed text is `voteMessage` (proposal number, title, option id).
 */
import { useState } from "react";
import { voteMessage } from "../../domain/messages.ts";
import { apiPost } from "../../lib/api.ts";
import { useApiQuery } from "../../lib/queries.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { toastFailure } from "../ui/failure-toast.ts";
import { toast } from "../ui/toast.tsx";
import { governancePaths } from "./paths.ts";

export type VotePhase = "idle" | "signing" | "signed" | "submitting";

export type VotingPower = {
  /** Null until known, and when loading it failed (`error`). */
  power: number | null;
  /** When it was counted (a proposal's snapshot: its start, or now while upcoming); null for the current count. */
  snapshotAt: string | null;
  loading: boolean;
  error: Error | null;
  retrying: boolean;
  refetch: () => unknown;
};

/**
 * The connected wallet's voting power: its current staked count, or with `proposalId` its snapshot on
 * that proposal. `loading` until the first answer; a failed load is `error` (with `refetch`), never 0.
 */
export function useVotingPower(address: string | null, proposalId?: number): VotingPower {
  const query = useApiQuery<{ votingPower: number; snapshotAt?: string | null }>(
    address ? governancePaths.votingPower(address, proposalId) : null,
  );
  return {
    power: query.data?.votingPower ?? null,
    snapshotAt: query.data?.snapshotAt ?? null,
    loading: query.isLoading && !query.data,
    error: query.data ? null : query.error,
    retrying: query.isFetching,
    refetch: query.refetch,
  };
}

/** A shown message older than this is timestamped again when signing (the server allows 10 minutes). */
const DRAFT_MAX_AGE_MS = 5 * 60_000;

type Signed = { optionId: number; message: string; signature: string };

export function useVote({ proposal, onVoted }: { proposal: { id: number; title: string }; onVoted: () => void | Promise<void> }) {
  const wallet = useWallet();
  const [selected, setSelected] = useState<number | null>(null);
  const [phase, setPhase] = useState<VotePhase>("idle");
  const [signed, setSigned] = useState<Signed | null>(null);
  // The text the wallet will be asked to sign for the chosen option, shown before signing (and signed as
  // shown, unless it has grown old: a signature is refused 10 minutes after its timestamp).
  const [draft, setDraft] = useState<{ optionId: number; message: string; at: number } | null>(null);

  function draftFor(optionId: number) {
    const at = new Date();
    const next = { optionId, message: voteMessage(proposal.id, proposal.title, optionId, at), at: at.getTime() };
    setDraft(next);
    return next;
  }

  /** A new choice needs a new signature: the message names the option. */
  function choose(optionId: number) {
    setSelected(optionId);
    if (draft?.optionId !== optionId) draftFor(optionId);
    if (signed && signed.optionId !== optionId) {
      setSigned(null);
      setPhase("idle");
    }
  }

  async function sign() {
    if (selected === null) {
      toast({ title: "Unable to vote", description: "Please select an option first.", variant: "destructive" });
      return;
    }
    if (!wallet.address || !wallet.hasExtension) {
      toast({ title: "Wallet not found", variant: "destructive" });
      return;
    }
    setPhase("signing");
    try {
      const fresh = draft && draft.optionId === selected && Date.now() - draft.at < DRAFT_MAX_AGE_MS ? draft : draftFor(selected);
      const message = fresh.message;
      const signature = await wallet.signMessage(message);
      setSigned({ optionId: selected, message, signature });
      setPhase("signed");
    } catch (error) {
      setPhase("idle");
      // Already shown by the wallet (now disconnected, or MyDoge must be updated).
      if (isWalletHandledError(error)) return;
      toast({
        title: "Signature failed",
        description: "Failed to sign the vote message. Please try again.",
        variant: "destructive",
      });
    }
  }

  async function submit() {
    if (!signed || selected === null || signed.optionId !== selected) {
      toast({ title: "Unable to vote", description: "Please sign the message to verify your vote.", variant: "destructive" });
      return;
    }
    if (!wallet.address) {
      toast({ title: "Wallet not found", variant: "destructive" });
      return;
    }
    setPhase("submitting");
    try {
      await apiPost(`/api/proposals/${proposal.id}/vote`, {
        address: wallet.address,
        optionId: signed.optionId,
        signature: signed.signature,
        message: signed.message,
      });
      setSigned(null);
      setSelected(null);
      setPhase("idle");
      toast({ title: "Vote submitted successfully", description: "Your vote has been recorded.", variant: "success" });
      await onVoted();
    } catch (error) {
      // A signature is accepted once: a failed submission signs again.
      setSigned(null);
      setPhase("idle");
      toastFailure({ title: "Failed to submit vote", description: "There was an issue submitting your vote. Please try again." }, error);
    }
  }

  /** Back to no choice and nothing signed (a vote change given up). */
  function reset() {
    setSigned(null);
    setSelected(null);
    setDraft(null);
    setPhase("idle");
  }

  return { selected, choose, phase, signed: signed !== null, sign, submit, reset, message: signed?.message ?? draft?.message ?? null };
}
