import { useState } from "react";
import { formatNumber, formatPoints, countOf } from "../../domain/format.ts";
import { PointsFigure } from "../ui/points-figure.tsx";
import type { Giveaway } from "../../lib/api.ts";
import { MinusIcon, PlusIcon } from "../icons.tsx";
import { Alert, AlertDescription, AlertTitle } from "../ui/alert.tsx";
import { Button, Spinner } from "../ui/button.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { Input, Label } from "../ui/input.tsx";
import { toast } from "../ui/toast.tsx";

/** The enter dialog opens this long after the holder's rewards were refreshed (spec section 9). */
export const ENTER_DIALOG_DELAY_MS = 300;

/** Tickets typed by the holder: at least 1; anything not a number counts as 1 (spec section 5). */
export function parseTickets(text: string): number {
  const value = Number.parseInt(text, 10);
  return Number.isFinite(value) && value >= 1 ? value : 1;
}

function notEnoughPointsText(total: number, tickets: number, balance: number): string {
  return `You need ${formatNumber(total)} points for ${countOf(tickets, "ticket")}, but you only have ${formatPoints(balance)}.`;
}

export function EnterGiveawayDialog({
  giveaway,
  balance,
  closedReason = null,
  onOpenChange,
  onEnter,
}: {
  giveaway: Giveaway | null;
  balance: number;
  /** Why the server would now refuse an entry (the giveaway closed while the dialog was open); null while open. */
  closedReason?: string | null;
  onOpenChange: (open: boolean) => void;
  /** Called only with an affordable number of tickets; resolves true when the entry went through, false after showing why not. */
  onEnter: (giveaway: Giveaway, tickets: number) => Promise<boolean>;
}) {
  const [text, setText] = useState("1");
  const [entering, setEntering] = useState(false);
  /** Every way out passes here, so the next giveaway opens with 1 ticket. */
  const close = () => {
    setText("1");
    onOpenChange(false);
  };

  const tickets = parseTickets(text);
  const cost = giveaway?.pointsCost ?? 0;
  const total = cost * tickets;
  const remaining = balance - total;
  const short = total > balance;

  /** `onEnter` shows its own failures (and resolves false); the dialog only tracks the wait. */
  const enter = async () => {
    if (!giveaway || closedReason) return;
    if (short) {
      toast({ title: "Not Enough Points", description: notEnoughPointsText(total, tickets, balance), variant: "destructive" });
      return;
    }
    setEntering(true);
    try {
      if (await onEnter(giveaway, tickets)) close();
    } finally {
      setEntering(false);
    }
  };

  return (
    <Dialog open={giveaway !== null} onOpenChange={(open) => !open && !entering && close()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Enter Giveaway</DialogTitle>
          <DialogDescription>{giveaway?.title}</DialogDescription>
        </DialogHeader>
        <div className="flex items-center justify-between rounded-lg border border-violet-500/25 bg-violet-500/10 px-4 py-3">
          <span className="text-sm text-zinc-300">Your Spook Points</span>
          <span className="text-lg font-bold text-violet-100" data-testid="enter-balance">
            <PointsFigure value={balance} />
          </span>
        </div>
        <div className="grid gap-2">
          <Label htmlFor="ticket-count">Number of tickets</Label>
          <div className="flex items-center gap-2">
            <Button
              variant="secondary"
              size="icon"
              aria-label="One ticket less"
              disabled={tickets <= 1 || entering}
              onClick={() => setText(String(tickets - 1))}
            >
              <MinusIcon />
            </Button>
            <div className="w-24 shrink-0">
              <Input
                id="ticket-count"
                type="number"
                inputMode="numeric"
                min={1}
                step={1}
                value={text}
                disabled={entering}
                onChange={(event) => setText(event.target.value)}
                onBlur={() => setText(String(parseTickets(text)))}
                className="text-center text-lg font-semibold"
              />
            </div>
            <Button
              variant="secondary"
              size="icon"
              aria-label="One ticket more"
              disabled={cost * (tickets + 1) > balance || entering}
              onClick={() => setText(String(tickets + 1))}
            >
              <PlusIcon />
            </Button>
            <span className="text-sm whitespace-nowrap text-zinc-400">× {formatNumber(cost)} SPOOK</span>
          </div>
        </div>
        <dl className="grid gap-1.5 rounded-lg border border-zinc-800 bg-zinc-900/60 p-4 text-sm">
          <div className="flex justify-between">
            <dt className="text-zinc-400">Total cost</dt>
            <dd className="font-semibold whitespace-nowrap text-zinc-100" data-testid="enter-total">
              {formatNumber(total)} SPOOK
            </dd>
          </div>
          <div className="flex justify-between">
            <dt className="text-zinc-400">Remaining after purchase</dt>
            <dd
              className={short ? "font-semibold whitespace-nowrap text-red-300" : "font-semibold whitespace-nowrap text-emerald-300"}
              data-testid="enter-remaining"
            >
              <PointsFigure value={remaining} /> SPOOK
            </dd>
          </div>
        </dl>
        {closedReason ? (
          <Alert variant="destructive" data-testid="enter-closed">
            <AlertTitle>Entries closed</AlertTitle>
            <AlertDescription>{closedReason}</AlertDescription>
          </Alert>
        ) : (
          short && (
            <Alert variant="destructive">
              <AlertTitle>Not Enough Points</AlertTitle>
              <AlertDescription>{notEnoughPointsText(total, tickets, balance)}</AlertDescription>
            </Alert>
          )
        )}
        <DialogFooter>
          <Button variant="secondary" disabled={entering} onClick={close}>
            Cancel
          </Button>
          {/* Disabled with its reason on screen: too few points (the alert above) or entries closed (issue 27, item 14 and rule 3). */}
          <Button disabled={entering || !giveaway || short || closedReason !== null} onClick={() => void enter()}>
            {entering ? (
              <>
                <Spinner label="Entering" /> Entering...
              </>
            ) : (
              "Enter Giveaway"
            )}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
