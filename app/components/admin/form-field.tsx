import type { ReactNode } from "react";
import { cn } from "../ui/cn.ts";
import { Label } from "../ui/input.tsx";

/** A labelled control with its hint and its first error (announced through aria-describedby by conform). */
export function FormField({
  label,
  htmlFor,
  errorId,
  errors,
  hint,
  className,
  children,
}: {
  label: ReactNode;
  htmlFor: string;
  errorId?: string;
  errors?: string[];
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={cn("grid min-w-0 content-start gap-1.5", className)}>
      <Label htmlFor={htmlFor}>{label}</Label>
      {children}
      {hint && !errors?.length ? <p className="text-xs text-zinc-500">{hint}</p> : null}
      <p id={errorId} className="min-h-0 text-xs text-red-300" role={errors?.length ? "alert" : undefined}>
        {errors?.[0]}
      </p>
    </div>
  );
}

export const textareaClasses =
  "min-h-24 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 py-2 text-sm text-zinc-100 placeholder:text-zinc-500 " +
  "focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40 disabled:opacity-50";

export const selectClasses =
  "h-10 w-full cursor-pointer rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 " +
  "focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";
