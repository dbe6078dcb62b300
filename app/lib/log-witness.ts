/**
 * Every holder's browser as a witness of the public log (issue 34, item 3; docs/transparency.md): it pins
 * the log's verifier key the first time, keeps the newest checkpoint it verified in localStorage, and checks
 * each new one in a Web Worker (signature, then consistency with the kept one). A failure is kept as evidence
 * (both signed checkpoints) and never replaces the kept checkpoint.
 */
import { useEffect, useState } from "react";
import type { CheckResult } from "./log-check.ts";

const KEPT = "spooks.log.kept";
const EVIDENCE = "spooks.log.evidence";

export type Kept = { verifierKey: string; note: string; size: number };
export type Evidence = { reason: string; keptNote: string | null; newNote: string; at: string };

export type LogWitnessState =
  | { state: "checking" }
  | { state: "checked"; size: number }
  /** The latest checkpoint lacks the witnesses' cosignatures the site's quorum asks for: not kept yet. */
  | { state: "unwitnessed"; size: number; cosigned: number; quorum: number }
  | { state: "unavailable" }
  | { state: "mismatch"; evidence: Evidence };

function read<T>(key: string): T | null {
  try {
    const text = localStorage.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

function runInWorker(request: unknown): Promise<CheckResult> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./log-worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<CheckResult>) => {
      worker.terminate();
      resolve(event.data);
    };
    worker.onerror = (event) => {
      worker.terminate();
      resolve({ status: "error", reason: event.message || "the log checker failed" });
    };
    worker.postMessage(request);
  });
}

/** One check of the site's latest checkpoint against what this browser kept. */
export async function witnessOnce(): Promise<LogWitnessState> {
  const evidence = read<Evidence>(EVIDENCE);
  if (evidence) return { state: "mismatch", evidence };
  const info = await fetch("/api/log", { cache: "no-store" })
    .then((response) =>
      response.ok ? (response.json() as Promise<{ verifierKey: string | null; witnesses: string[]; quorum: number }>) : null,
    )
    .catch(() => null);
  if (!info?.verifierKey) return { state: "unavailable" };
  const kept = read<Kept>(KEPT);
  const keep = (found: Evidence) => {
    localStorage.setItem(EVIDENCE, JSON.stringify(found));
    return { state: "mismatch", evidence: found } as const;
  };
  const at = new Date().toISOString();
  // The key is pinned at the first visit: another key is trusted only through a hand-over the worker proves.
  const result = await runInWorker({
    keptNote: kept?.note ?? null,
    keptKey: kept?.verifierKey ?? null,
    verifierKey: info.verifierKey,
    witnesses: info.witnesses,
    quorum: info.quorum,
    base: window.location.origin,
  });
  if (result.status === "error") return kept ? { state: "checked", size: kept.size } : { state: "unavailable" };
  if (result.status === "fork") return keep({ reason: result.reason, keptNote: result.keptNote, newNote: result.newNote, at });
  if (result.status === "unwitnessed") return { state: "unwitnessed", size: result.size, cosigned: result.cosigned, quorum: result.quorum };
  localStorage.setItem(KEPT, JSON.stringify({ verifierKey: info.verifierKey, note: result.note, size: result.size } satisfies Kept));
  return { state: "checked", size: result.size };
}

/** The newest checkpoint this browser verified and keeps, or null. */
export const keptCheckpoint = (): Kept | null => read<Kept>(KEPT);

/** The text file of evidence a holder downloads: both signed checkpoints, and why they disagree. */
export function evidenceFile(evidence: Evidence): string {
  return [
    "Spooks public log: two signed checkpoints that do not agree.",
    `Seen at: ${evidence.at}`,
    `Why: ${evidence.reason}`,
    "",
    "--- the checkpoint this browser kept ---",
    evidence.keptNote ?? "(none)",
    "--- the checkpoint the site serves now ---",
    evidence.newNote,
  ].join("\n");
}

const CHECK_EVERY_MS = 60_000;
let shared: Promise<LogWitnessState> | null = null;
const listeners = new Set<(state: LogWitnessState) => void>();

/** The witness's state, checked at load and every minute; one check for every component using it. */
export function useLogWitness(): LogWitnessState {
  const [state, setState] = useState<LogWitnessState>({ state: "checking" });
  useEffect(() => {
    listeners.add(setState);
    const check = () => {
      shared ??= witnessOnce().finally(() => setTimeout(() => (shared = null), 1000));
      void shared.then((next) => listeners.forEach((listener) => listener(next)));
    };
    check();
    const timer = setInterval(check, CHECK_EVERY_MS);
    return () => {
      listeners.delete(setState);
      clearInterval(timer);
    };
  }, []);
  return state;
}
