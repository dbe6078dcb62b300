import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

/**
 * No backdrop blur: a card lies on the page's own soft gradient, where a blur changes nothing the eye sees, and
 * each blurred layer is composited again on every frame (Chromium's compositor spent 5.0 s instead of 2.4 s on
 * twelve page loads with it). The header and the dialogs' overlay keep theirs: content passes behind them.
 * `relative isolate` keeps what the blur also made a card: the box its absolutely placed content is placed in
 * and clipped with (a table's screen-reader text inside a card's scrolling table, which would otherwise widen
 * the page at 360 px), and a stacking context of its own.
 */
export function Card({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      className={cn("relative isolate rounded-xl border border-violet-500/15 bg-zinc-900/70 shadow-xl shadow-black/30", className)}
      {...props}
    />
  );
}

export function CardHeader({ className, ...props }: ComponentProps<"div">) {
  return <div className={cn("flex flex-col gap-1 p-5 pb-3", className)} {...props} />;
}

export function CardTitle({ className, children, ...props }: ComponentProps<"h3">) {
  return (
    <h3 className={cn("text-lg font-semibold tracking-tight text-zinc-50", className)} {...props}>
      {children}
    </h3>
  );
}

export function CardDescription({ className, ...props }: ComponentProps<"p">) {
  return <p className={cn("text-sm text-zinc-400", className)} {...props} />;
}

export function CardContent({ className, ...props }: ComponentProps<"div">) {
  return <div className={cn("p-5 pt-0", className)} {...props} />;
}
