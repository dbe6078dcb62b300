import { useState } from "react";
import { formatNumber } from "../../domain/format.ts";
import type { WalletItem } from "../../lib/api.ts";
import { DownloadIcon, ExternalLinkIcon, LockIcon } from "../icons.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { cn } from "../ui/cn.ts";
import { Skeleton } from "../ui/skeleton.tsx";
import { ItemBoost } from "./item-boost.tsx";
import { ItemImage, isLocalImage, useImageFallback, useItemImageSources } from "./item-image.tsx";
import { rarityClasses } from "./rarity.ts";

/**
 * An item's name on one line: when it is too long the collection name is cut with "…", never its number
 * ("Spook Soc… #995", not "Spook Society #9…"; issue 33, item 6). The whole name is its title.
 */
export function ItemName({ name, className, testId }: { name: string; className?: string; testId?: string }) {
  const at = name.lastIndexOf(" #");
  const [head, tail] = at > 0 ? [name.slice(0, at), name.slice(at)] : [name, ""];
  return (
    <span className={cn("flex min-w-0", className)} title={name} data-testid={testId}>
      <span className="min-w-0 truncate">{head}</span>
      {/* pre: its leading space is kept, so the name reads (and is named) "Spooks #4". */}
      {tail && <span className="shrink-0 whitespace-pre">{tail}</span>}
    </span>
  );
}

export function ItemCard({
  item,
  busy,
  earnsFrom,
  onStake,
  onUnstake,
}: {
  item: WalletItem;
  busy?: boolean;
  /** '22:00' when the item was staked during the hour under way: it earns from the next whole hour. */
  earnsFrom?: string | null;
  onStake: (item: WalletItem) => void;
  onUnstake: (item: WalletItem) => void;
}) {
  const sources = useItemImageSources(item);
  const { source, fail } = useImageFallback(sources);
  const local = source !== null && isLocalImage(source);
  // The download (or view) link only once the picture it points at has loaded: never a link to nothing.
  const [loadedSource, setLoadedSource] = useState<string | null>(null);
  const viewUrl = source !== null && loadedSource === source ? source : null;

  return (
    <Card
      data-testid="item-card"
      data-inscription-id={item.inscriptionId}
      data-staked={item.isStaked ? "true" : "false"}
      className={cn("group overflow-hidden p-0 transition-colors", item.isStaked ? "border-emerald-500/40" : "hover:border-violet-500/40")}
    >
      <div className="relative aspect-square overflow-hidden bg-zinc-900">
        <ItemImage
          source={source}
          onError={fail}
          onLoaded={setLoadedSource}
          name={item.name}
          className="transition-transform duration-300 group-hover:scale-105"
        />
        {item.isStaked && (
          <div className="absolute inset-0 flex items-start justify-start bg-gradient-to-t from-emerald-950/70 via-transparent to-transparent p-2">
            <span className="inline-flex items-center gap-1 rounded-md bg-emerald-500 px-2 py-0.5 text-xs font-bold tracking-wider text-emerald-950 shadow">
              <LockIcon className="h-3 w-3" />
              STAKED
            </span>
          </div>
        )}
        {viewUrl !== null && (
          <a
            href={viewUrl}
            {...(local ? { download: `${item.name}.png` } : { target: "_blank", rel: "noopener noreferrer" })}
            aria-label={local ? `Download ${item.name}` : `View ${item.name} in a new tab`}
            title={local ? "Download image" : "View in new tab"}
            className="absolute top-2 right-2 grid h-8 w-8 place-items-center rounded-md bg-zinc-950/80 text-zinc-200 opacity-0 transition-opacity group-hover:opacity-100 focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-violet-400"
          >
            {local ? <DownloadIcon /> : <ExternalLinkIcon />}
          </a>
        )}
      </div>
      <div className="grid gap-2 p-3">
        <div className="flex items-start justify-between gap-2">
          <h3 className="min-w-0 text-sm font-semibold text-zinc-50">
            <ItemName name={item.name} />
          </h3>
        </div>
        <div className="flex flex-wrap items-center gap-1.5">
          <span
            className={cn("rounded-full border px-2 py-0.5 text-[11px] font-semibold", rarityClasses(item.rarityLabel))}
            data-testid="rarity"
          >
            {item.rarityLabel}
          </span>
          {item.rank ? <span className="text-[11px] text-zinc-400">Rank #{formatNumber(item.rank)}</span> : null}
        </div>
        {/* What it earns, boosts included (issue 33, item 3): the parts below add up to this. */}
        {item.isStaked && (
          <p className="text-xs font-medium text-emerald-300" data-testid="item-rate">
            +{formatNumber(item.perDay ?? item.rewardRate)} SPOOK/day
          </p>
        )}
        {item.isStaked && earnsFrom && <p className="text-xs text-amber-200">Earns from {earnsFrom}</p>}
        {item.isStaked && <ItemBoost item={item} />}
        {item.isStaked ? (
          // One button element for both (no keys): a keyboard user's focus stays on it when the Spook's state flips.
          <Button variant="secondary" size="sm" disabled={busy} onClick={() => onUnstake(item)} aria-label={`Unstake ${item.name}`}>
            Unstake
          </Button>
        ) : (
          <Button size="sm" disabled={busy} onClick={() => onStake(item)} aria-label={`Stake ${item.name}`}>
            Stake
          </Button>
        )}
      </div>
    </Card>
  );
}

export function ItemCardSkeleton() {
  return (
    <Card className="overflow-hidden p-0" data-testid="item-skeleton">
      <Skeleton className="aspect-square rounded-none" />
      <div className="grid gap-2 p-3">
        <Skeleton className="h-4 w-2/3" />
        <Skeleton className="h-4 w-1/2" />
        <Skeleton className="h-8 w-full" />
      </div>
    </Card>
  );
}
