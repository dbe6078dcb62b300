/**
 * C2SP tlog-checkpoint v1.0.0 (origin, size, root), C2SP tlog-cosignature v1.0.1 (a witness's timestamped
 * signature over a checkpoint) and C2SP tlog-proof@v1 receipts (an inclusion proof with its checkpoint).
 */
import { HASH_SIZE, type Hash } from "./merkle.ts";
import {
  ALG_COSIGNATURE_V1,
  ed25519Sign,
  ed25519Verify,
  formatSignatureLine,
  fromBase64,
  NoteError,
  parseNote,
  toBase64,
  utf8,
  type Signer,
  type Verifier,
} from "./note.ts";

export type Checkpoint = { origin: string; size: number; root: Hash; extensions: string[] };

export function formatCheckpoint({ origin, size, root, extensions }: Checkpoint): string {
  return `${origin}\n${size}\n${toBase64(root)}\n${extensions.map((line) => `${line}\n`).join("")}`;
}

/** A checkpoint's text (the note's text, signatures apart). */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw new NoteError("a checkpoint ends with a newline");
  const [origin, sizeText, rootText, ...extensions] = text.slice(0, -1).split("\n");
  if (!origin || /[\s+]/.test(origin)) throw new NoteError("a checkpoint's origin has no space and no +");
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText ?? "") || !Number.isSafeInteger(Number(sizeText))) {
    throw new NoteError("a checkpoint's size is a decimal number without leading zeros");
  }
  const root = fromBase64(rootText ?? "");
  if (!root || root.length !== HASH_SIZE) throw new NoteError("a checkpoint's root is 32 bytes of base64");
  if (extensions.some((line) => line === "")) throw new NoteError("a checkpoint has no empty line");
  return { origin, size: Number(sizeText), root, extensions };
}

/** The bytes a cosignature/v1 signs: its header, the time, then the checkpoint text. */
function cosignedMessage(checkpointText: string, time: number): Uint8Array {
  return utf8(`cosignature/v1\ntime ${time}\n${checkpointText}`);
}

const u64 = (value: number) => {
  const bytes = new Uint8Array(8);
  let rest = value;
  for (let i = 7; i >= 0; i--) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  return bytes;
};

const readU64 = (bytes: Uint8Array) => bytes.slice(0, 8).reduce((value, byte) => value * 256 + byte, 0);

/** A witness's cosignature line over `checkpointText`, at `time` (whole seconds). */
export function cosign(checkpointText: string, witness: Signer, time: number): string {
  if (witness.alg !== ALG_COSIGNATURE_V1) throw new NoteError("a witness key is a cosignature/v1 key");
  const signature = ed25519Sign(witness.seed, cosignedMessage(checkpointText, time));
  return formatSignatureLine({ name: witness.name, id: witness.id, signature: Uint8Array.of(...u64(time), ...signature) });
}

/**
 * The witnesses among `witnesses` whose cosignature/v1 on the note verifies (lines of unknown keys are
 * ignored; a known key's bad line refuses the note), with the time each signed.
 */
export function verifyCosignatures(note: string, witnesses: readonly Verifier[]): { witness: Verifier; time: number }[] {
  const { text, signatures } = parseNote(note);
  const found: { witness: Verifier; time: number }[] = [];
  for (const line of signatures) {
    const witness = witnesses.find(
      (candidate) => candidate.alg === ALG_COSIGNATURE_V1 && candidate.name === line.name && candidate.id.every((b, i) => b === line.id[i]),
    );
    if (!witness) continue;
    if (line.signature.length !== 72) throw new NoteError(`the cosignature of ${witness.name} is not 72 bytes`);
    const time = readU64(line.signature);
    if (!ed25519Verify(witness.publicKey, cosignedMessage(text, time), line.signature.slice(8))) {
      throw new NoteError(`the cosignature of ${witness.name} does not verify`);
    }
    if (!found.some((entry) => entry.witness === witness)) found.push({ witness, time });
  }
  return found;
}

/** A tlog-proof@v1 receipt: the entry's index, its inclusion proof, the signed checkpoint it is proven in. */
export type Receipt = { index: number; proof: Hash[]; checkpoint: string; extra?: Uint8Array };

export const RECEIPT_HEADER = "c2sp.org/tlog-proof@v1";

export function formatReceipt({ index, proof, checkpoint, extra }: Receipt): string {
  const lines = [RECEIPT_HEADER, ...(extra ? [`extra ${toBase64(extra)}`] : []), `index ${index}`, ...proof.map(toBase64)];
  return `${lines.join("\n")}\n\n${checkpoint}`;
}

export function parseReceipt(text: string): Receipt {
  const split = text.indexOf("\n\n");
  if (split < 0) throw new NoteError("a receipt has a blank line before its checkpoint");
  const lines = text.slice(0, split).split("\n");
  if (lines.shift() !== RECEIPT_HEADER) throw new NoteError(`a receipt starts with ${RECEIPT_HEADER}`);
  let extra: Uint8Array | undefined;
  if (lines[0]?.startsWith("extra ")) {
    extra = fromBase64(lines.shift()!.slice(6)) ?? undefined;
    if (!extra) throw new NoteError("a receipt's extra is base64");
  }
  const indexLine = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() ?? "");
  if (!indexLine) throw new NoteError("a receipt names its index");
  const proof = lines.map((line) => {
    const hash = fromBase64(line);
    if (!hash || hash.length !== HASH_SIZE) throw new NoteError("a receipt's proof is one base64 hash per line");
    return hash;
  });
  if (proof.length > 63) throw new NoteError("a receipt's proof has at most 63 hashes");
  return { index: Number(indexLine[1]), proof, checkpoint: text.slice(split + 2), extra };
}
