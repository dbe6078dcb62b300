/**
 * An inscription's picture, trying its sources in the spec's order: the local collection_images folder,
 * then a market CDN, then an inscription API, then a content host, then a placeholder showing the name.
 * A failed load falls to the next source.
 */
import { useState } from "react";
import { IMAGE_HOSTS } from "../../domain/image-hosts.ts";
import type { WalletItem } from "../../lib/api.ts";
import { GhostIcon } from "../icons.tsx";
import { cn } from "../ui/cn.ts";

/** Where pictures come from, in order (one list, which the server's CSP also allows). */
export { IMAGE_HOSTS };

export function localImagePath(item: Pick<WalletItem, "collection" | "name">): string | null {
  const number = /#(\d+)/.exec(item.name)?.[1];
  return number ? `/collection_images/${item.collection}/${number}.png` : null;
}

export function imageSources(item: Pick<WalletItem, "collection" | "name" | "inscriptionId" | "imageUrl">): string[] {
  const sources = [
    item.imageUrl,
    localImagePath(item),
    IMAGE_HOSTS.marketCdn(item.inscriptionId),
    IMAGE_HOSTS.inscriptionApi(item.inscriptionId),
    IMAGE_HOSTS.contentHost(item.inscriptionId),
  ].filter((source): source is string => Boolean(source));
  return [...new Set(sources)];
}

export const isLocalImage = (source: string) => source.startsWith("/") && !source.startsWith("//");

/** Tracks which source is showing; `source` null means every source failed (placeholder). */
export function useImageFallback(sources: string[]) {
  // Failures count for one list of sources: another list (another item) starts again from its first.
  const key = sources.join("|");
  const [failed, setFailed] = useState({ key, count: 0 });
  const index = failed.key === key ? failed.count : 0;
  return {
    source: index < sources.length ? sources[index] : null,
    fail: () => setFailed((current) => ({ key, count: (current.key === key ? current.count : 0) + 1 })),
  };
}

export function ItemPlaceholder({ name, compact, className }: { name: string; compact?: boolean; className?: string }) {
  return (
    <div
      role="img"
      aria-label={name}
      className={cn(
        "flex h-full w-full flex-col items-center justify-center gap-2 bg-gradient-to-br from-violet-900/70 via-zinc-900 to-fuchsia-950/70 text-violet-200",
        className,
      )}
    >
      <GhostIcon className={compact ? "h-7 w-7 opacity-80" : "h-12 w-12 animate-[float_4s_ease-in-out_infinite] opacity-80"} />
      {!compact && <span className="px-2 text-center text-sm font-semibold">{name}</span>}
    </div>
  );
}

export function ItemImage({
  name,
  source,
  onError,
  compact,
  className,
}: {
  name: string;
  /** From useImageFallback: the source to try, or null for the placeholder. */
  source: string | null;
  onError: () => void;
  /** Small thumbnails: the placeholder shows the ghost only (the name is beside it). */
  compact?: boolean;
  className?: string;
}) {
  if (!source) return <ItemPlaceholder name={name} compact={compact} className={className} />;
  return (
    <img
      key={source}
      src={source}
      alt={name}
      loading="lazy"
      decoding="async"
      onError={onError}
      className={cn("h-full w-full object-cover [image-rendering:pixelated]", className)}
    />
  );
}
