import { twMerge } from "tailwind-merge";

/**
 * Joins class names, skipping falsy ones, and resolves Tailwind conflicts with tailwind-merge: a later
 * class wins over an earlier one of the same utility (`cn("max-w-lg p-6", "max-w-3xl p-3")` is
 * "max-w-3xl p-3"), so a component's `className` overrides its defaults.
 */
export function cn(...classes: (string | false | null | undefined)[]): string {
  return twMerge(classes.filter(Boolean).join(" "));
}
