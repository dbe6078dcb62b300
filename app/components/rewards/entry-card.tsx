import { formatNumber } from "../../domain/format.ts";
import { entryStatus, type EntryStatus } from "../../domain/giveaways.ts";
import type { UserGiveawayEntry } from "../../lib/api.ts";
import { ShareIcon, TrophyIcon } from "../icons.tsx";
import { Badge, type BadgeVariant } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { DateText } from "../governance/date-text.tsx";

const STATUS_VARIANT: Record<EntryStatus, BadgeVariant> = {
  "Won!": "success",
  Active: "default",
  Drawn: "secondary",
  Drawing: "warning",
  Ended: "secondary",
  Inactive: "warning",
};

/**
 * The post a winner shares: what they won and the draw's verify page (issue 33, item 2), so a reader can check it.
 * `origin` is the site's (the page's own), making the link absolute.
 */
export function shareWinUrl(title: string, giveawayId: number, origin: string): string {
  const text = `I just won "${title}" on Spooks! 👻 Stake Spooks, Earn Rewards.`;
  const url = `${origin}/giveaways/${giveawayId}/verify`;
  return `https://x.com/intent/tweet?text=${encodeURIComponent(text)}&url=${encodeURIComponent(url)}`;
}

const siteOrigin = () => (typeof window === "undefined" ? "" : window.location.origin);

export function EntryCard({
  entry,
  now,
  onClaim,
}: {
  entry: UserGiveawayEntry;
  now: Date;
  /** Offered on one winning entry per giveaway (the newest), until the prize is claimed. */
  onClaim?: () => void;
}) {
  const giveaway = {
    active: entry.active,
    endDate: new Date(entry.endDate),
    winnerAddress: entry.winnerAddress,
    drawBlockHeight: entry.drawBlockHeight,
  };
  const status = entryStatus(entry, giveaway, now);
  return (
    <Card data-testid="entry-card" className={entry.isWinner ? "border-amber-400/50 p-4" : "p-4"}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="font-semibold text-zinc-50">{entry.giveawayTitle}</h3>
          <p className="text-xs text-zinc-400">
            Entered <DateText value={entry.enteredAt} withTime />
          </p>
        </div>
        <Badge variant={STATUS_VARIANT[status]} data-testid="entry-status">
          {status}
        </Badge>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-2 text-sm">
        <div>
          <dt className="text-xs text-zinc-400">Tickets</dt>
          <dd className="font-semibold text-zinc-100">{formatNumber(entry.tickets)}</dd>
        </div>
        <div>
          <dt className="text-xs text-zinc-400">Cost</dt>
          <dd className="font-semibold text-zinc-100">{formatNumber(entry.tickets * entry.pointsCost)} SPOOK</dd>
        </div>
      </dl>
      {entry.isWinner && (
        <div className="mt-3 flex items-center justify-between gap-2">
          <Badge variant="warning" className="text-sm">
            <TrophyIcon className="h-4 w-4" /> Winner!
          </Badge>
          <Button asChild size="sm" variant="outline">
            <a href={shareWinUrl(entry.giveawayTitle, entry.giveawayId, siteOrigin())} target="_blank" rel="noopener noreferrer">
              <ShareIcon /> Share Win
            </a>
          </Button>
        </div>
      )}
      {entry.isWinner &&
        (entry.claimedAt ? (
          <p className="mt-3 text-sm text-emerald-300" data-testid="prize-claimed">
            Prize claimed on <DateText value={entry.claimedAt} withTime />
          </p>
        ) : (
          onClaim && (
            <Button size="sm" className="mt-3 w-full" onClick={onClaim}>
              <TrophyIcon className="h-4 w-4" /> Claim Prize
            </Button>
          )
        ))}
    </Card>
  );
}
