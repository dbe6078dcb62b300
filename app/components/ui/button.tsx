import { Slot } from "radix-ui";
import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

// White text keeps ≥ 4.5:1 on every background, hovered too (violet-500, red-500 and emerald-600 do not).
const VARIANTS = {
  default: "bg-violet-600 text-white shadow-lg shadow-violet-950/40 hover:bg-violet-700",
  secondary: "bg-zinc-800 text-zinc-100 hover:bg-zinc-700",
  outline: "border border-violet-500/40 bg-transparent text-violet-200 hover:bg-violet-500/10",
  ghost: "bg-transparent text-zinc-300 hover:bg-zinc-800 hover:text-white",
  destructive: "bg-red-600 text-white hover:bg-red-700",
  success: "bg-emerald-700 text-white hover:bg-emerald-800",
} as const;

const SIZES = {
  sm: "h-8 px-3 text-xs",
  md: "h-10 px-4 text-sm",
  lg: "h-12 px-6 text-base",
  icon: "h-9 w-9",
  /** Small on phones, md from the sm breakpoint (header controls). */
  responsive: "h-9 px-3 text-xs sm:h-10 sm:px-4 sm:text-sm",
} as const;

export type ButtonProps = ComponentProps<"button"> & {
  variant?: keyof typeof VARIANTS;
  size?: keyof typeof SIZES;
  /** Render the single child (e.g. a link) with the button's look. */
  asChild?: boolean;
};

export function buttonClasses(variant: keyof typeof VARIANTS = "default", size: keyof typeof SIZES = "md") {
  return cn(
    "inline-flex shrink-0 cursor-pointer items-center justify-center gap-2 rounded-lg font-medium whitespace-nowrap transition-colors",
    "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-400",
    "disabled:pointer-events-none disabled:opacity-50",
    VARIANTS[variant],
    SIZES[size],
  );
}

export function Button({ variant, size, asChild, className, type, ...props }: ButtonProps) {
  const classes = cn(buttonClasses(variant, size), className);
  if (asChild) return <Slot.Root className={classes} {...props} />;
  return <button type={type ?? "button"} className={classes} {...props} />;
}

/** A small spinning ring, for busy buttons and loading states. */
export function Spinner({ className, label = "Loading" }: { className?: string; label?: string }) {
  return (
    <span
      role="status"
      aria-label={label}
      className={cn("inline-block h-4 w-4 animate-spin rounded-full border-2 border-current border-r-transparent", className)}
    />
  );
}
