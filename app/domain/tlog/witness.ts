/**
 * C2SP tlog-witness v1.0.0: the add-checkpoint request a log sends, and a witness's decision on it, as pure
 * functions (the witness program keeps the state and answers HTTP; the log's service sends).
 */
import { cosign, parseCheckpoint } from "./checkpoint.ts";
import { equalBytes, ProofError, verifyConsistency, type Hash } from "./merkle.ts";
import { fromBase64, NoteError, openNote, toBase64, type Signer, type Verifier } from "./note.ts";

export type AddCheckpoint = { oldSize: number; proof: Hash[]; note: string };

export function formatAddCheckpoint({ oldSize, proof, note }: AddCheckpoint): string {
  return `old ${oldSize}\n${proof.map((hash) => `${toBase64(hash)}\n`).join("")}\n${note}`;
}

export function parseAddCheckpoint(body: string): AddCheckpoint {
  const split = body.indexOf("\n\n");
  if (split < 0) throw new NoteError("an add-checkpoint body has a blank line before the checkpoint");
  const [first, ...lines] = body.slice(0, split).split("\n");
  const old = /^old (0|[1-9][0-9]*)$/.exec(first ?? "");
  if (!old) throw new NoteError("an add-checkpoint body starts with old <size>");
  if (lines.length > 63) throw new NoteError("a consistency proof has at most 63 hashes");
  const proof = lines.map((line) => {
    const hash = fromBase64(line);
    if (!hash || hash.length !== 32) throw new NoteError("a proof line is one base64 hash");
    return hash;
  });
  return { oldSize: Number(old[1]), proof, note: body.slice(split + 2) };
}

/** What a witness keeps per origin: the latest checkpoint it cosigned (its size and root, and the note). */
export type WitnessedCheckpoint = { size: number; root: string; note: string };

export type WitnessAnswer =
  | { status: 200; body: string; keep: WitnessedCheckpoint }
  | { status: 400 | 403 | 404 | 422; body: string }
  | { status: 409; body: string; contentType: "text/x.tlog.size" };

/**
 * A witness's answer to an add-checkpoint request (tlog-witness): 404 unknown origin, 403 not signed by the log's
 * key, 400 old > new, 409 old ≠ the size it has (with that size), 422 a bad proof (or equal sizes, other roots);
 * else 200 with its cosignature line, and the checkpoint to keep (the caller stores it before answering).
 */
export function witnessDecision(
  request: string,
  logs: readonly Verifier[],
  latest: (origin: string) => WitnessedCheckpoint | null,
  witness: Signer,
  time: number,
): WitnessAnswer {
  let parsed: AddCheckpoint;
  try {
    parsed = parseAddCheckpoint(request);
  } catch (error) {
    return { status: 400, body: (error as Error).message };
  }
  const text = parsed.note.slice(0, parsed.note.indexOf("\n\n") + 1);
  let origin: string;
  try {
    origin = parseCheckpoint(text).origin;
  } catch (error) {
    return { status: 400, body: (error as Error).message };
  }
  const log = logs.find((candidate) => candidate.name === origin);
  if (!log) return { status: 404, body: `unknown log origin ${origin}` };
  try {
    openNote(parsed.note, [log]);
  } catch (error) {
    return { status: 403, body: (error as Error).message };
  }
  const checkpoint = parseCheckpoint(text);
  if (parsed.oldSize > checkpoint.size) return { status: 400, body: `old size ${parsed.oldSize} is larger than ${checkpoint.size}` };
  const kept = latest(origin);
  const keptSize = kept?.size ?? 0;
  if (parsed.oldSize !== keptSize) return { status: 409, body: `${keptSize}\n`, contentType: "text/x.tlog.size" };
  if (kept) {
    const keptRoot = fromBase64(kept.root)!;
    try {
      if (kept.size === checkpoint.size) {
        if (parsed.proof.length > 0 || !equalBytes(keptRoot, checkpoint.root)) throw new ProofError("same size, another root");
      } else {
        verifyConsistency(kept.size, checkpoint.size, keptRoot, checkpoint.root, parsed.proof);
      }
    } catch (error) {
      return { status: 422, body: (error as Error).message };
    }
  } else if (parsed.proof.length > 0) {
    return { status: 422, body: "a proof from size 0 is empty" };
  }
  return {
    status: 200,
    body: cosign(text, witness, time),
    keep: { size: checkpoint.size, root: toBase64(checkpoint.root), note: parsed.note },
  };
}
