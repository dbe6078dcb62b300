/**
 * A winner claims the prize (issue 27, item 9): says how the admin can reach them, sees the exact text the
 * wallet will sign and what it means (as stake and vote do: issue 33, item 4), signs it with MyDoge and sends
 * it. The contact goes to the admin only. `useClaimPrize` is the signing and sending, shared by the rewards
 * page (its "Claim Prize" and `/rewards?claim={id}`, where a win's notification leads) and the verify page.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { claimMessage, MAX_CLAIM_CONTACT } from "../../domain/messages.ts";
import { apiPost, paths, type ClaimPrizeResponse } from "../../lib/api.ts";
import { queryKeyOf } from "../../lib/queries.ts";
import { isWalletHandledError, useWallet } from "../../wallet/wallet-context.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { toastFailure } from "../ui/failure-toast.ts";
import { Input, Label } from "../ui/input.tsx";
import { SignedMessage } from "../ui/signed-message.tsx";
import { toast } from "../ui/toast.tsx";

export type ClaimTarget = { giveawayId: number; title: string };

/** The path a win leads to: the rewards page, which opens this giveaway's claim dialog. */
export const claimPath = (giveawayId: number) => `/rewards?claim=${giveawayId}`;

/** Signs `message` (the one the dialog shows) and sends the claim; resolves true once claimed, false after saying why not. */
export function useClaimPrize(address: string | null) {
  const wallet = useWallet();
  const queryClient = useQueryClient();
  return async (target: ClaimTarget, contact: string, message: string): Promise<boolean> => {
    if (!address) return false;
    let signature: string;
    try {
      toast({ title: "Waiting for Signature", description: "Please approve the claim in your MyDoge wallet.", duration: 30_000 });
      signature = await wallet.signMessage(message);
    } catch (error) {
      if (!isWalletHandledError(error)) {
        toast({ title: "Signature Cancelled", description: "The claim was cancelled.", variant: "destructive" });
      }
      return false;
    }
    try {
      await apiPost<ClaimPrizeResponse>(`/api/giveaways/${target.giveawayId}/claim`, { address, contact, message, signature });
      toast({ title: "Prize Claimed", description: "The admin will contact you to deliver your prize.", variant: "success" });
      await queryClient.invalidateQueries({ queryKey: queryKeyOf(paths.userEntries(address)) });
      return true;
    } catch (error) {
      toastFailure({ title: "Failed to Claim", description: "Your prize could not be claimed." }, error);
      return false;
    }
  };
}

export function ClaimDialog({
  target,
  address,
  onOpenChange,
  onClaim,
}: {
  target: ClaimTarget | null;
  /** The winner's address: the message names it. */
  address: string;
  onOpenChange: (open: boolean) => void;
  /** Signs exactly `message` and sends the claim; resolves true once claimed, false after showing why not. */
  onClaim: (target: ClaimTarget, contact: string, message: string) => Promise<boolean>;
}) {
  const [contact, setContact] = useState("");
  const [claiming, setClaiming] = useState(false);
  const trimmed = contact.trim();
  // Timestamped when the dialog opens for a giveaway; the text shown is the text signed.
  const openedAt = useMemo(() => (target ? new Date() : null), [target]);
  const message = target && openedAt ? claimMessage(target.title, target.giveawayId, address, trimmed || "…", openedAt) : "";
  const close = () => {
    setContact("");
    onOpenChange(false);
  };
  const claim = async () => {
    if (!target || !trimmed) return;
    setClaiming(true);
    try {
      if (await onClaim(target, trimmed, message)) close();
    } finally {
      setClaiming(false);
    }
  };
  return (
    <Dialog open={target !== null} onOpenChange={(open) => !open && !claiming && close()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Claim your prize</DialogTitle>
          <DialogDescription>{target?.title}</DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <Label htmlFor="claim-contact">How can the admin reach you?</Label>
          <Input
            id="claim-contact"
            value={contact}
            maxLength={MAX_CLAIM_CONTACT}
            disabled={claiming}
            placeholder="E-mail, Discord or Telegram name"
            onChange={(event) => setContact(event.target.value.replace(/[\r\n]+/g, " "))}
          />
          <p className="text-xs text-zinc-400">Only the admin sees it, to deliver your prize. It is never shown publicly.</p>
        </div>
        {target && (
          <SignedMessage
            testId="claim-message"
            message={message}
            meaning={[
              `You, the winner, claim "${target.title}" (giveaway #${target.giveawayId}).`,
              trimmed ? `The admin reaches you at: ${trimmed}` : "Your contact goes where the … is.",
              "It spends nothing and can be sent once.",
            ]}
          />
        )}
        <DialogFooter>
          <Button variant="secondary" disabled={claiming} onClick={close}>
            Cancel
          </Button>
          <Button disabled={claiming || !trimmed} onClick={() => void claim()}>
            {claiming ? (
              <>
                <Spinner label="Claiming" /> Claiming...
              </>
            ) : (
              "Sign and Claim"
            )}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
