import { useState } from "react";
import { Link } from "react-router";
import { countOf, shortenAddress, timeRemaining, formatNumber } from "../../domain/format.ts";
import { drawProgressText, entryClosedReason, giveawayStatusLabel, isGiveawayEnded, isGiveawayOpen } from "../../domain/giveaways.ts";
import { DateText } from "../governance/date-text.tsx";
import type { Giveaway } from "../../lib/api.ts";
import { ClockIcon, ShieldIcon, TicketIcon, TrophyIcon } from "../icons.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { cn } from "../ui/cn.ts";
import { GiveawayImage } from "./giveaway-image.tsx";

export function GiveawayCard({
  giveaway,
  now,
  yourTickets,
  onEnter,
  onEnlarge,
}: {
  giveaway: Giveaway;
  now: Date;
  yourTickets: number;
  onEnter: (giveaway: Giveaway) => void;
  onEnlarge: (giveaway: Giveaway) => void;
}) {
  const [brokenImage, setBrokenImage] = useState<string | null>(null);
  const endDate = new Date(giveaway.endDate);
  // Drawn, or closed for its draw ("Drawing at block {H}"), it is closed whatever its end date: 'Ended' overlay, button disabled.
  const state = { active: giveaway.active, endDate, winnerAddress: giveaway.winnerAddress, drawBlockHeight: giveaway.drawBlockHeight };
  const open = isGiveawayOpen(state, now);
  const ended = isGiveawayEnded(state, now);
  const drawing = giveaway.drawBlockHeight !== null && giveaway.drawSeed === null;
  const remaining = ended ? "Ended" : timeRemaining(endDate, now);
  // What the server would answer an entry now (rule 3): the button is disabled with this reason.
  const closedReason = entryClosedReason({ ...state, drawn: giveaway.drawSeed !== null }, now);
  // One word per state, the admin's and the CLI's (issue 33, item 7): Drawn, Drawing, Inactive, Ended.
  const status = giveawayStatusLabel({ ...state, drawn: giveaway.drawSeed !== null || Boolean(giveaway.winnerAddress) }, now);
  const reasonId = `giveaway-${giveaway.id}-closed`;

  return (
    <Card data-testid="giveaway-card" data-giveaway-id={giveaway.id} className="flex flex-col overflow-hidden p-0">
      {/* The badges over the picture are siblings of the enlarge button, so its name is only its label (WCAG 2.5.3). */}
      <div className="relative aspect-[4/3] overflow-hidden bg-zinc-900">
        <button
          type="button"
          onClick={() => onEnlarge(giveaway)}
          // The placeholder's visible text is part of the name when the picture is broken (WCAG 2.5.3).
          aria-label={`${brokenImage === giveaway.imageUrl || !giveaway.imageUrl ? "Image Not Available: " : ""}Enlarge image of ${giveaway.title}`}
          className="group absolute inset-0 h-full w-full cursor-zoom-in overflow-hidden focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-violet-400"
        >
          <GiveawayImage
            src={giveaway.imageUrl}
            alt={giveaway.title}
            onBroken={() => setBrokenImage(giveaway.imageUrl)}
            className="transition-transform duration-300 group-hover:scale-105"
          />
        </button>
        {!open && (
          <div className="pointer-events-none absolute inset-0 grid place-items-center bg-black/60">
            <span className="rounded-lg border border-zinc-500 bg-zinc-900/80 px-4 py-1.5 text-lg font-bold tracking-wide text-zinc-100">
              {status}
            </span>
          </div>
        )}
        <span
          className={cn(
            "pointer-events-none absolute top-2 right-2 inline-flex items-center gap-1 rounded-full px-2.5 py-1 text-xs font-semibold shadow",
            remaining === "Ended" ? "bg-zinc-800 text-zinc-300" : "bg-violet-600 text-white",
          )}
          data-testid="time-remaining"
        >
          <ClockIcon className="h-3.5 w-3.5" />
          {remaining}
        </span>
        <span className="pointer-events-none absolute bottom-2 left-2 rounded-full bg-zinc-950/85 px-2.5 py-1 text-xs font-semibold text-amber-300">
          {formatNumber(giveaway.pointsCost)} SPOOK
        </span>
      </div>
      <div className="flex flex-1 flex-col gap-3 p-4">
        <div>
          <h3 className="text-lg font-semibold text-zinc-50">{giveaway.title}</h3>
          <p className="text-xs text-zinc-400">
            {endDate.getTime() <= now.getTime() ? "Ended" : "Ends"} <DateText value={endDate} withTime />
          </p>
        </div>
        <p className="line-clamp-3 text-sm text-zinc-300">{giveaway.description}</p>
        <div className="flex flex-wrap gap-2 text-xs">
          <Badge variant="secondary">
            <TicketIcon className="h-3.5 w-3.5" /> Your tickets: <span data-testid="your-tickets">{formatNumber(yourTickets)}</span>
          </Badge>
          <Badge variant="outline">
            {countOf(giveaway.entriesCount, "entry", "entries")} · {countOf(giveaway.ticketsCount, "ticket")}
          </Badge>
          <Badge variant="outline" data-testid="winners-count">
            <TrophyIcon className="h-3.5 w-3.5" /> {countOf(giveaway.winners, "winner")}
          </Badge>
        </div>
        {giveaway.winnerAddresses.length > 0 && (
          <div className="flex items-start gap-1.5 rounded-lg border border-amber-500/30 bg-amber-500/10 px-3 py-2 text-sm text-amber-200">
            <TrophyIcon className="mt-0.5 h-4 w-4 shrink-0" /> {giveaway.winnerAddresses.length > 1 ? "Winners:" : "Winner:"}{" "}
            <span className="font-mono" data-testid="winners">
              {giveaway.winnerAddresses.map((address) => shortenAddress(address, 6, 4)).join(", ")}
            </span>
          </div>
        )}
        {drawing && (
          <div className="rounded-lg border border-violet-500/30 bg-violet-500/10 px-3 py-2 text-sm text-violet-100" aria-live="polite">
            <p data-testid="drawing-at">Drawing at block {giveaway.drawBlockHeight}</p>
            {giveaway.drawProgress && (
              <p className="text-xs text-violet-200" data-testid="draw-progress">
                {drawProgressText(giveaway.drawProgress)}
              </p>
            )}
          </div>
        )}
        <details className="group/fair text-xs text-zinc-400">
          <summary className="flex cursor-pointer items-center gap-1.5 select-none hover:text-zinc-200">
            <ShieldIcon className="h-3.5 w-3.5 text-emerald-400" /> Provably fair draw
          </summary>
          <dl className="mt-2 grid gap-1.5 rounded-lg border border-zinc-800 bg-black/40 p-2 font-mono break-all">
            <div>
              <dt className="text-zinc-400">Commitment (SHA-256 of the seed)</dt>
              <dd className="text-zinc-300" data-testid="draw-commitment">
                {giveaway.drawCommitment}
              </dd>
            </div>
            <div>
              <dt className="text-zinc-400">Seed</dt>
              <dd className="text-zinc-300" data-testid="draw-seed">
                {giveaway.drawSeed ?? "revealed when the winner is drawn"}
              </dd>
            </div>
          </dl>
          <p className="mt-1.5">
            {giveaway.drawVersion === 2
              ? "Winners are drawn with the seed and the hash of a block fixed when entries close, so nobody, the operator included, can know them before."
              : 'Check that SHA-256(seed) equals the commitment; the winning ticket is SHA-256("spooks-draw:" + seed + ":" + total tickets) mod total tickets, over entries in order.'}
          </p>
        </details>
        {/* A link that looks like one, on the card itself (issue 27, item 14): not hidden in the details above. */}
        <Link
          to={`/giveaways/${giveaway.id}/verify`}
          className="self-start text-sm font-medium text-violet-300 underline underline-offset-4 hover:text-violet-200"
          data-testid="verify-draw-link"
        >
          Verify this draw<span className="sr-only">: {giveaway.title}</span>
        </Link>
        <div className="mt-auto grid gap-1.5">
          <Button disabled={closedReason !== null} aria-describedby={closedReason ? reasonId : undefined} onClick={() => onEnter(giveaway)}>
            {yourTickets > 0 ? "Add More Tickets" : "Enter Giveaway"}
          </Button>
          {closedReason && (
            <p id={reasonId} className="text-center text-xs text-zinc-400" data-testid="entry-closed-reason">
              {closedReason}
            </p>
          )}
        </div>
      </div>
    </Card>
  );
}
