import { useMemo, useState } from "react";
import { newStakePercent, stakedItemPerDay, type BoostRules } from "../../domain/boosts.ts";
import { formatNumber } from "../../domain/format.ts";
import { stakeMessage } from "../../domain/messages.ts";
import type { Rewards, WalletItem } from "../../lib/api.ts";
import { Button, Spinner } from "../ui/button.tsx";
import { SignedMessage } from "../ui/signed-message.tsx";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "../ui/dialog.tsx";
import { dailyChangeText, earnsFromText, percentsWith, stakedPercents } from "./earnings.ts";
import { ItemName } from "./item-card.tsx";
import { ItemImage, useImageFallback, useItemImageSources } from "./item-image.tsx";
import { stakeNumberOf } from "./use-staking.ts";

/** What "Staking Spook #N" names: the item by its collection's name (a Spook Society item is "Spook #N" there). */
export function stakeMeaning(item: Pick<WalletItem, "name" | "inscriptionId">): string[] {
  return [`Item: ${item.name}`, `Inscription: ${item.inscriptionId}`];
}

/**
 * 'Stake Your Spook': the item, what it will earn per day, the wallet's daily total before → after (both with
 * the boosts in force: the rates the accrual credits), and the exact message the wallet will sign, whole at
 * every width.
 */
export function StakeDialog({
  item,
  rewards,
  items = [],
  rules = null,
  onOpenChange,
  onConfirm,
}: {
  item: WalletItem | null;
  /** The wallet's rewards: the daily total before → after and when the item starts to earn (null: not known). */
  rewards?: Rewards | null;
  /** The wallet's items (their boosts), and the boosts in force (null while not known): the previews. */
  items?: readonly WalletItem[];
  rules?: BoostRules | null;
  onOpenChange: (open: boolean) => void;
  /** Signs and stakes; shows its own failure toasts rather than rejecting. */
  onConfirm: (item: WalletItem, message: string) => Promise<unknown>;
}) {
  const [signing, setSigning] = useState(false);
  // Timestamped when the dialog opens for an item; the text shown is the text signed.
  const message = useMemo(() => (item ? stakeMessage("stake", stakeNumberOf(item), new Date()) : ""), [item]);

  const sources = useItemImageSources(item);
  const { source, fail } = useImageFallback(sources);

  /** `onConfirm` shows its own failures; the dialog closes once it settles either way. */
  const signAndStake = async () => {
    if (!item) return;
    setSigning(true);
    try {
      await onConfirm(item, message);
    } finally {
      setSigning(false);
      onOpenChange(false);
    }
  };

  return (
    <Dialog open={item !== null} onOpenChange={(open) => !signing && onOpenChange(open)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Stake Your Spook</DialogTitle>
          <DialogDescription>Sign with MyDoge wallet to earn SPOOK Points</DialogDescription>
        </DialogHeader>
        {item && (
          <>
            <div className="flex items-center gap-4 rounded-lg border border-zinc-800 bg-zinc-900/70 p-3">
              <div className="h-16 w-16 shrink-0 overflow-hidden rounded-md">
                <ItemImage source={source} onError={fail} name={item.name} compact />
              </div>
              <div className="min-w-0">
                <ItemName name={item.name} className="font-semibold text-zinc-50" testId="stake-dialog-item" />
                {rules && (
                  <p className="text-sm text-emerald-300" data-testid="stake-item-rate">
                    +{formatNumber(stakedItemPerDay(stakedPercents(items).length + 1, newStakePercent(rules, item.rarityLabel)))} SPOOK per
                    day
                  </p>
                )}
              </div>
            </div>
            {rewards && rules && (
              <div className="grid gap-1 rounded-lg border border-zinc-800 bg-zinc-900/40 px-3 py-2 text-sm">
                <p className="font-semibold text-zinc-100 tabular-nums" data-testid="stake-daily-change">
                  {dailyChangeText(stakedPercents(items), percentsWith(items, [item], rules))}
                </p>
                <p className="text-zinc-300" data-testid="stake-earns-from">
                  {earnsFromText(rewards.currentHour)}
                </p>
              </div>
            )}
            <SignedMessage testId="stake-message" message={message} meaning={stakeMeaning(item)} />
          </>
        )}
        <DialogFooter>
          <Button variant="secondary" disabled={signing} onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button disabled={signing || !item} onClick={() => void signAndStake()}>
            {signing ? (
              <>
                <Spinner label="Signing" /> Signing...
              </>
            ) : (
              "Sign & Stake"
            )}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
