/**
 * A winner claims the prize (issue 27, item 9): says how the admin can reach them, sees the exact text the
 * wallet will sign and what it means, signs it with MyDoge and sends it. The contact goes to the admin only.
 */
import { useState } from "react";
import { MAX_CLAIM_CONTACT } from "../../domain/messages.ts";
import { Alert, AlertDescription, AlertTitle } from "../ui/alert.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { Input, Label } from "../ui/input.tsx";

export type ClaimTarget = { giveawayId: number; title: string };

export function ClaimDialog({
  target,
  onOpenChange,
  onClaim,
}: {
  target: ClaimTarget | null;
  onOpenChange: (open: boolean) => void;
  /** Signs and sends the claim; resolves true once claimed, false after showing why not. */
  onClaim: (target: ClaimTarget, contact: string) => Promise<boolean>;
}) {
  const [contact, setContact] = useState("");
  const [claiming, setClaiming] = useState(false);
  const trimmed = contact.trim();
  const close = () => {
    setContact("");
    onOpenChange(false);
  };
  const claim = async () => {
    if (!target || !trimmed) return;
    setClaiming(true);
    try {
      if (await onClaim(target, trimmed)) close();
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
        <Alert>
          <AlertTitle>What your wallet signs</AlertTitle>
          <AlertDescription>
            <p>
              That you, the winner, claim "{target?.title}" and can be reached at the contact above. It spends nothing and can be sent once.
            </p>
          </AlertDescription>
        </Alert>
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
