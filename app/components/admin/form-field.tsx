import { useEffect, useRef, type ReactNode } from "react";
import { cn } from "../ui/cn.ts";
import { Label } from "../ui/input.tsx";

/** What these components read of a conform field's metadata (`fields.x`). */
export type FieldMeta = { id: string; name: string; errorId: string; errors?: string[] };

/**
 * A labelled control with its hint and its first error (announced through aria-describedby by conform).
 * The label points at `field.id`: the control inside takes that id (getInputProps and the like give it).
 */
export function FormField({
  label,
  field,
  hint,
  className,
  children,
}: {
  label: ReactNode;
  field: FieldMeta;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const { id, name, errorId, errors } = field;
  return (
    <div className={cn("grid min-w-0 content-start gap-1.5", className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint && !errors?.length ? <p className="text-xs text-zinc-400">{hint}</p> : null}
      <p id={errorId} className="min-h-0 text-xs text-red-300" role={errors?.length ? "alert" : undefined} data-field-error={name}>
        {errors?.[0]}
      </p>
    </div>
  );
}

/** The first error of a field that is not a FormField (an upload, a list of options), under its errorId. */
export function FieldError({ field }: { field: FieldMeta }) {
  return (
    <p id={field.errorId} className="text-xs text-red-300">
      {field.errors?.[0]}
    </p>
  );
}

export const textareaClasses =
  "min-h-24 w-full rounded-lg border border-zinc-700 bg-zinc-900 px-3 py-2 text-sm text-zinc-100 placeholder:text-zinc-400 " +
  "focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40 disabled:opacity-50";

export const selectClasses =
  "h-10 w-full cursor-pointer rounded-lg border border-zinc-700 bg-zinc-900 px-3 text-sm text-zinc-100 " +
  "focus-visible:border-violet-500 focus-visible:outline-2 focus-visible:outline-violet-500/40";

/**
 * A hidden input carrying a field's value set by code (a converted date, an uploaded file's path). When the
 * value changes it fires an `input` event, as typing does, so conform revalidates the field after the first
 * submit and its error clears as soon as it is fixed.
 */
export function HiddenField({ name, value }: { name: string; value: string }) {
  const ref = useRef<HTMLInputElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    ref.current?.dispatchEvent(new Event("input", { bubbles: true }));
  }, [value]);
  return <input ref={ref} type="hidden" name={name} value={value} />;
}
