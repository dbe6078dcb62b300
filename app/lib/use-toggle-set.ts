import { useCallback, useState } from "react";

/** A set of choices (checkboxes) and a toggle for one of them. */
export function useToggleSet<T>(initial: Iterable<T>): [ReadonlySet<T>, (value: T) => void] {
  const [chosen, setChosen] = useState<ReadonlySet<T>>(() => new Set(initial));
  const toggle = useCallback(
    (value: T) =>
      setChosen((current) => {
        const next = new Set(current);
        if (next.has(value)) next.delete(value);
        else next.add(value);
        return next;
      }),
    [],
  );
  return [chosen, toggle];
}
