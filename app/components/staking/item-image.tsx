/**
 * An inscription's picture, trying its sources in order (docs/decisions.md "Item images"): the catalogue's
 * own image URL when it has one, the local collection_images folder, this site's /content/{id} (the ord
 * server's content, cached by the server), the outside hosts of the ITEM_IMAGE_URLS setting, then a
 * placeholder showing the name. A failed load falls to the next source; while one loads, a skeleton shows.
 */
import { useState } from "react";
import { useRouteLoaderData } from "react-router";
import { itemImageUrl } from "../../domain/image-hosts.ts";
import type { WalletItem } from "../../lib/api.ts";
import type { loader as rootLoader } from "../../root.tsx";
import { GhostIcon } from "../icons.tsx";
import { cn } from "../ui/cn.ts";
import { Skeleton } from "../ui/skeleton.tsx";

type ImageItem = Pick<WalletItem, "collection" | "name" | "inscriptionId" | "imageUrl">;

export function localImagePath(item: Pick<WalletItem, "collection" | "name">): string | null {
  const number = /#(\d+)/.exec(item.name)?.[1];
  return number ? `/collection_images/${item.collection}/${number}.png` : null;
}

/** The server's copy of the inscription's content (app/routes/content.ts). */
export const contentPath = (inscriptionId: string) => `/content/${inscriptionId}`;

/**
 * Every source to try, in order; `outsideHosts` are the ITEM_IMAGE_URLS templates, `localCollections` those this
 * install has a collection_images folder for (no other collection's picture is asked for there: issue 33, item 10).
 */
export function imageSources(item: ImageItem, outsideHosts: readonly string[] = [], localCollections: readonly string[] = []): string[] {
  const sources = [
    item.imageUrl,
    localCollections.includes(item.collection) ? localImagePath(item) : null,
    contentPath(item.inscriptionId),
    ...outsideHosts.map((template) => itemImageUrl(template, item.inscriptionId)),
  ].filter((source): source is string => Boolean(source));
  return [...new Set(sources)];
}

/** The outside hosts' URL templates (ITEM_IMAGE_URLS), from the root loader. */
export function useItemImageUrls(): string[] {
  const data = useRouteLoaderData<typeof rootLoader>("root");
  return data?.itemImageUrls ?? [];
}

/** imageSources with the configured outside hosts and this install's local folders; none for no item. */
export function useItemImageSources(item: ImageItem | null): string[] {
  const outsideHosts = useItemImageUrls();
  const localCollections = useRouteLoaderData<typeof rootLoader>("root")?.localImageCollections ?? [];
  return item ? imageSources(item, outsideHosts, localCollections) : [];
}

/** An image in the collection_images folder (offered as a download; others open in a new tab). */
export const isLocalImage = (source: string) => source.startsWith("/collection_images/");

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
      data-testid="item-placeholder"
      className={cn(
        "flex h-full w-full flex-col items-center justify-center gap-2 bg-gradient-to-br from-violet-900/70 via-zinc-900 to-fuchsia-950/70 text-violet-200",
        className,
      )}
    >
      <GhostIcon className={compact ? "h-7 w-7 opacity-80" : "h-12 w-12 animate-[float_4s_ease-in-out_2] opacity-80"} />
      {!compact && <span className="px-2 text-center text-sm font-semibold">{name}</span>}
    </div>
  );
}

export function ItemImage({
  name,
  source,
  onError,
  onLoaded,
  compact,
  className,
}: {
  name: string;
  /** From useImageFallback: the source to try, or null for the placeholder. */
  source: string | null;
  onError: () => void;
  /** Told which source finished loading (an image that exists). */
  onLoaded?: (source: string) => void;
  /** Small thumbnails: the placeholder shows the ghost only (the name is beside it). */
  compact?: boolean;
  className?: string;
}) {
  // The source that finished loading; any other source is still loading (skeleton over a hidden image).
  const [loaded, setLoaded] = useState<string | null>(null);
  if (!source) return <ItemPlaceholder name={name} compact={compact} className={className} />;
  const isLoaded = loaded === source;
  return (
    <span className="relative block h-full w-full" data-testid="item-image" data-state={isLoaded ? "loaded" : "loading"}>
      <img
        key={source}
        // An image already in the browser's cache may have loaded before React listened.
        ref={(img) => {
          if (img?.complete && img.naturalWidth > 0) {
            setLoaded(source);
            onLoaded?.(source);
          }
        }}
        src={source}
        alt={name}
        loading="lazy"
        decoding="async"
        onLoad={() => {
          setLoaded(source);
          onLoaded?.(source);
        }}
        onError={onError}
        className={cn(
          "h-full w-full object-cover transition-opacity duration-300 [image-rendering:pixelated]",
          !isLoaded && "opacity-0",
          className,
        )}
      />
      {!isLoaded && <Skeleton data-testid="item-image-loading" className="absolute inset-0 h-full w-full rounded-none" />}
    </span>
  );
}
