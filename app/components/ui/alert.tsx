import type { ComponentProps } from "react";
import { cn } from "./cn.ts";

const VARIANTS = {
  default: "border-violet-500/30 bg-violet-500/10 text-violet-100",
  destructive: "border-red-500/40 bg-red-500/10 text-red-200",
  success: "border-emerald-500/40 bg-emerald-500/10 text-emerald-200",
  warning: "border-amber-500/40 bg-amber-500/10 text-amber-200",
} as const;

export function Alert({ variant = "default", className, ...props }: ComponentProps<"div"> & { variant?: keyof typeof VARIANTS }) {
  return (
    <div
      role={variant === "destructive" ? "alert" : "status"}
      className={cn("rounded-lg border px-4 py-3 text-sm", VARIANTS[variant], className)}
      {...props}
    />
  );
}

/** An alert's title: bold text, not a heading (an alert is not a section of the page's outline: issue 33, item 10). */
export function AlertTitle({ className, children, ...props }: ComponentProps<"p">) {
  return (
    <p className={cn("mb-1 font-semibold leading-none tracking-tight", className)} {...props}>
      {children}
    </p>
  );
}

export function AlertDescription({ className, ...props }: ComponentProps<"div">) {
  return <div className={cn("text-sm opacity-90", className)} {...props} />;
}
