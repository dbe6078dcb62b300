/**
 * The vote flow of the details dialog: idle → signing → signed → submitting → (success resets) or back
 * to a retryable state on error. The signed text is `voteMessage` (proposal number, title, option id).
 */
import { useState } from "react";
import { voteMessage } from "../../domain/messages.ts";
import { apiPost } from "../../lib/api.ts";

export type VotePhase = "idle" | "signing" | "signed" | "submitting";

type Toast = (toast: { title: string; description?: string; variant?: "default" | "destructive" | "success" }) => void;

type Wallet = {
  address: string | null;
  hasExtension: boolean;
  isDemo: boolean;
  signMessage(message: string): Promise<string>;
};

type Signed = { optionId: number; message: string; signature: string };

export function useVote({
  proposal,
  wallet,
  toast,
  onVoted,
}: {
  proposal: { id: number; title: string };
  wallet: Wallet;
  toast: Toast;
  onVoted: () => void | Promise<void>;
}) {
  const [selected, setSelected] = useState<number | null>(null);
  const [phase, setPhase] = useState<VotePhase>("idle");
  const [signed, setSigned] = useState<Signed | null>(null);

  /** A new choice needs a new signature: the message names the option. */
  function choose(optionId: number) {
    setSelected(optionId);
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
    if (!wallet.address || (!wallet.hasExtension && !wallet.isDemo)) {
      toast({ title: "Wallet not found", variant: "destructive" });
      return;
    }
    setPhase("signing");
    try {
      const message = voteMessage(proposal.id, proposal.title, selected, new Date());
      const signature = await wallet.signMessage(message);
      if (!signature) throw new Error("Failed to sign message");
      setSigned({ optionId: selected, message, signature });
      setPhase("signed");
    } catch {
      setPhase("idle");
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
    } catch {
      // A signature is accepted once: a failed submission signs again.
      setSigned(null);
      setPhase("idle");
      toast({
        title: "Failed to submit vote",
        description: "There was an issue submitting your vote. Please try again.",
        variant: "destructive",
      });
    }
  }

  return { selected, choose, phase, signed: signed !== null, sign, submit };
}
