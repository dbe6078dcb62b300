import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

export function Input({ className, ...props }: ComponentProps<"input">) {
  return (
    <input
      className={cn(
        "h-10 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 placeholder:text-zinc-400",
        "focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40 disabled:opacity-50",
        className,
      )}
      {...props}
    />
  );
}

/** A label names its control by id (`htmlFor`), so every use is tied to the field it describes. */
export function Label({ className, htmlFor, children, ...props }: ComponentProps<"label"> & { htmlFor: string }) {
  return (
    <label htmlFor={htmlFor} className={cn("text-sm font-medium text-zinc-300", className)} {...props}>
      {children}
    </label>
  );
}
