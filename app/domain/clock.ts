/**
 * The one clock of the system (DECISIONS: time comes from the process clock, never from the database's
 * now()). Everything that needs "now" calls `now()`, so faketime, or a test's `setClock`, moves it all.
 */
let source: () => number = () => Date.now();

export function now(): Date {
  return new Date(source());
}

export function nowMs(): number {
  return source();
}

/** Replace the clock (tests). Returns a function that restores the previous one. */
export function setClock(next: () => number | Date): () => void {
  const previous = source;
  source = () => {
    const value = next();
    return typeof value === "number" ? value : value.getTime();
  };
  return () => {
    source = previous;
  };
}

export const HOUR_MS = 3_600_000;

/** Start of the UTC hour containing `at`. */
export function hourStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}
