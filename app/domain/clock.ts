/**
 * The one clock of the system (DECISIONS: time comes from the process clock, never from the database's
 * now()). Everything that needs "now" calls `now()`, so faketime, or a test's `setClock`, moves it all.
 */
type ClockSource = { read: () => number };

// One source per process, under a global name: the server build bundles its own copy of this module, and the
// indexer, the CLI and the tests import this one, so a test's `setClock` moves the site it serves as well.
const CLOCK = Symbol.for("spooks.clock");
const holder = globalThis as typeof globalThis & { [CLOCK]?: ClockSource };
const source: ClockSource = (holder[CLOCK] ??= { read: () => Date.now() });

export function now(): Date {
  return new Date(source.read());
}

export function nowMs(): number {
  return source.read();
}

/** Replace the clock (tests). Returns a function that restores the previous one. */
export function setClock(next: () => number | Date): () => void {
  const previous = source.read;
  source.read = () => {
    const value = next();
    return typeof value === "number" ? value : value.getTime();
  };
  return () => {
    source.read = previous;
  };
}

export const HOUR_MS = 3_600_000;

/** Start of the UTC hour containing `at`. */
export function hourStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}
