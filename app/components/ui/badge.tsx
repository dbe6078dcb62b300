import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

const VARIANTS = {
  default: "border-violet-500/40 bg-violet-500/15 text-violet-200",
  secondary: "border-zinc-700 bg-zinc-800 text-zinc-300",
  success: "border-emerald-500/40 bg-emerald-500/15 text-emerald-300",
  warning: "border-amber-500/40 bg-amber-500/15 text-amber-300",
  destructive: "border-red-500/40 bg-red-500/15 text-red-300",
  outline: "border-zinc-600 bg-transparent text-zinc-300",
} as const;

export type BadgeVariant = keyof typeof VARIANTS;

export function Badge({ variant = "default", className, ...props }: ComponentProps<"span"> & { variant?: BadgeVariant }) {
  return (
    <span
      className={cn(
        "inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium whitespace-nowrap",
        VARIANTS[variant],
        className,
      )}
      {...props}
    />
  );
}
