import { useState } from "react";
import { ImageOffIcon } from "../icons.tsx";
import { cn } from "../ui/cn.ts";

/** A giveaway's picture; a broken one shows 'Image Not Available'. */
export function GiveawayImage({
  src,
  alt,
  className,
  onBroken,
}: {
  src: string;
  alt: string;
  className?: string;
  /** Told when the picture cannot be shown (so a button around it can name what it shows). */
  onBroken?: () => void;
}) {
  const [broken, setBroken] = useState(false);
  if (broken || !src) {
    return (
      <div
        role="img"
        aria-label={`${alt}: Image Not Available`}
        className={cn("flex h-full w-full flex-col items-center justify-center gap-2 bg-zinc-900 text-zinc-400", className)}
      >
        <ImageOffIcon className="h-8 w-8" />
        <span className="text-sm">Image Not Available</span>
      </div>
    );
  }
  return (
    <img
      src={src}
      alt={alt}
      onError={() => {
        setBroken(true);
        onBroken?.();
      }}
      className={cn("h-full w-full object-cover", className)}
    />
  );
}
