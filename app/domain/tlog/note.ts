/**
 * C2SP signed-note v1.0.0 with Ed25519 keys: the verifier and signer key strings, key IDs, signing and
 * opening a note (with cosignature/v1 lines for witnesses: cosignature.ts). Base64 is checked strictly.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";

export const ALG_ED25519 = 0x01;
export const ALG_COSIGNATURE_V1 = 0x04;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export const utf8 = (text: string) => encoder.encode(text);

export class NoteError extends Error {}

// Base64 (standard alphabet, padded), strict: a text decodes only if encoding the bytes gives it back.
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2] : 0;
    const n = a * 65536 + b * 256 + c;
    out += ALPHABET[Math.floor(n / 262144) % 64] + ALPHABET[Math.floor(n / 4096) % 64];
    out += i + 1 < bytes.length ? ALPHABET[Math.floor(n / 64) % 64] : "=";
    out += i + 2 < bytes.length ? ALPHABET[n % 64] : "=";
  }
  return out;
}

/** The bytes of a strict base64 text, or null (wrong alphabet, length, padding or non-zero spare bits). */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    const values = [0, 1, 2, 3].map((j) => (text[i + j] === "=" ? 0 : ALPHABET.indexOf(text[i + j])));
    const n = values[0] * 262144 + values[1] * 4096 + values[2] * 64 + values[3];
    const chunk = [Math.floor(n / 65536), Math.floor(n / 256) % 256, n % 256];
    for (const byte of chunk) if (at < bytes.length) bytes[at++] = byte;
  }
  return toBase64(bytes) === text ? bytes : null;
}

const hexOf = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");

/** A key name: non-empty UTF-8 with no space, no `+` and no control character. */
export function isKeyName(name: string): boolean {
  return name.length > 0 && !/[\s+\p{Cc}]/u.test(name);
}

/** The 4-byte key ID: SHA-256(name || 0x0A || alg || public key)[:4]. */
export function keyId(name: string, alg: number, publicKey: Uint8Array): Uint8Array {
  const nameBytes = utf8(name);
  const data = new Uint8Array(nameBytes.length + 2 + publicKey.length);
  data.set(nameBytes, 0);
  data[nameBytes.length] = 0x0a;
  data[nameBytes.length + 1] = alg;
  data.set(publicKey, nameBytes.length + 2);
  return sha256(data).slice(0, 4);
}

export type Verifier = { name: string; id: Uint8Array; alg: number; publicKey: Uint8Array };
export type Signer = Verifier & { seed: Uint8Array };

/** `<name>+<hex id>+<base64(alg || key)>`: split at the first two `+` (the base64 may hold more), the ID recomputed. */
export function parseVerifierKey(text: string): Verifier {
  const first = text.indexOf("+");
  const second = first < 0 ? -1 : text.indexOf("+", first + 1);
  if (second < 0) throw new NoteError("a verifier key is <name>+<id>+<key>");
  const name = text.slice(0, first);
  const idHex = text.slice(first + 1, second);
  const key = fromBase64(text.slice(second + 1));
  if (!isKeyName(name)) throw new NoteError("the verifier key's name is not a key name");
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new NoteError("the verifier key's ID is not 8 lowercase hex digits");
  if (!key || key.length < 1) throw new NoteError("the verifier key is not base64");
  const alg = key[0];
  const publicKey = key.slice(1);
  if ((alg !== ALG_ED25519 && alg !== ALG_COSIGNATURE_V1) || publicKey.length !== 32) {
    throw new NoteError("the verifier key is not an Ed25519 key");
  }
  const id = keyId(name, alg, publicKey);
  if (hexOf(id) !== idHex) throw new NoteError("the verifier key's ID does not match its name and key");
  return { name, id, alg, publicKey };
}

export function formatVerifierKey(verifier: Verifier): string {
  return `${verifier.name}+${hexOf(verifier.id)}+${toBase64(Uint8Array.of(verifier.alg, ...verifier.publicKey))}`;
}

/** Go's signer key form: `PRIVATE+KEY+<name>+<hex id>+<base64(alg || 32-byte seed)>`. */
export function parseSignerKey(text: string): Signer {
  const prefix = "PRIVATE+KEY+";
  if (!text.startsWith(prefix)) throw new NoteError("a signer key starts with PRIVATE+KEY+");
  const rest = text.slice(prefix.length);
  const first = rest.indexOf("+");
  const second = first < 0 ? -1 : rest.indexOf("+", first + 1);
  if (second < 0) throw new NoteError("a signer key is PRIVATE+KEY+<name>+<id>+<key>");
  const name = rest.slice(0, first);
  const idHex = rest.slice(first + 1, second);
  const key = fromBase64(rest.slice(second + 1));
  if (!isKeyName(name)) throw new NoteError("the signer key's name is not a key name");
  if (!key || key.length !== 33 || (key[0] !== ALG_ED25519 && key[0] !== ALG_COSIGNATURE_V1)) {
    throw new NoteError("the signer key is not an Ed25519 seed");
  }
  const alg = key[0];
  const seed = key.slice(1);
  const publicKey = ed25519.getPublicKey(seed);
  const id = keyId(name, alg, publicKey);
  if (hexOf(id) !== idHex) throw new NoteError("the signer key's ID does not match its name and key");
  return { name, id, alg, publicKey, seed };
}

export function formatSignerKey(signer: Signer): string {
  return `PRIVATE+KEY+${signer.name}+${hexOf(signer.id)}+${toBase64(Uint8Array.of(signer.alg, ...signer.seed))}`;
}

/** A signer from a 32-byte seed (a new key: pass random bytes). */
export function signerFromSeed(name: string, seed: Uint8Array, alg = ALG_ED25519): Signer {
  if (!isKeyName(name)) throw new NoteError(`${JSON.stringify(name)} is not a key name (no spaces, no +)`);
  if (seed.length !== 32) throw new NoteError("an Ed25519 seed is 32 bytes");
  const publicKey = ed25519.getPublicKey(seed);
  return { name, id: keyId(name, alg, publicKey), alg, publicKey, seed: Uint8Array.from(seed) };
}

export const verifierOf = ({ name, id, alg, publicKey }: Signer): Verifier => ({ name, id, alg, publicKey });

export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed);
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

/** A signature line: key name, and the key ID with the signature bytes. */
export type NoteSignature = { name: string; id: Uint8Array; signature: Uint8Array };

export type Note = { text: string; signatures: NoteSignature[] };

const MAX_SIGNATURES = 100;

/** A control character other than newline (signed-note forbids them). */
const hasControl = (text: string) => [...text].some((char) => char !== "\n" && (char < " " || char === "\u007f"));

/** Splits a signed note into its text and signature lines (no signature checked). */
export function parseNote(note: string): Note {
  if (hasControl(note)) throw new NoteError("a note holds no control character but newline");
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("a signed note has a blank line before its signatures");
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2);
  if (!lines.endsWith("\n")) throw new NoteError("a signed note ends with a newline");
  const signatures = lines
    .slice(0, -1)
    .split("\n")
    .map((line) => {
      const match = /^\u2014 (\S+) (\S+)$/.exec(line);
      const bytes = match ? fromBase64(match[2]) : null;
      if (!match || !bytes || bytes.length < 5 || !isKeyName(match[1])) throw new NoteError(`not a signature line: ${line}`);
      return { name: match[1], id: bytes.slice(0, 4), signature: bytes.slice(4) };
    });
  if (signatures.length > MAX_SIGNATURES) throw new NoteError("too many signatures");
  return { text, signatures };
}

export function formatSignatureLine(signature: NoteSignature): string {
  return `\u2014 ${signature.name} ${toBase64(Uint8Array.of(...signature.id, ...signature.signature))}\n`;
}

function checkText(text: string): void {
  if (!text.endsWith("\n")) throw new NoteError("a note's text ends with a newline");
  if (hasControl(text)) throw new NoteError("a note holds no control character but newline");
}

/** The note `text` signed by `signer` (an Ed25519 note signature). */
export function signNote(text: string, signer: Signer): string {
  checkText(text);
  const signature = ed25519Sign(signer.seed, utf8(text));
  return `${text}\n${formatSignatureLine({ name: signer.name, id: signer.id, signature })}`;
}

const sameKey = (signature: NoteSignature, verifier: Verifier) =>
  signature.name === verifier.name && signature.id.every((byte, i) => byte === verifier.id[i]);

/**
 * Opens a signed note with known Ed25519 verifiers: signatures of unknown keys are ignored, every known key's
 * must verify (one bad: refused), and at least one must. Answers the text and the verifiers that signed.
 */
export function openNote(note: string, verifiers: readonly Verifier[]): { text: string; signedBy: Verifier[] } {
  const { text, signatures } = parseNote(note);
  const signedBy: Verifier[] = [];
  for (const signature of signatures) {
    const verifier = verifiers.find((candidate) => candidate.alg === ALG_ED25519 && sameKey(signature, candidate));
    if (!verifier) continue;
    if (!ed25519Verify(verifier.publicKey, utf8(text), signature.signature)) {
      throw new NoteError(`the signature of ${verifier.name} does not verify`);
    }
    if (!signedBy.includes(verifier)) signedBy.push(verifier);
  }
  if (signedBy.length === 0) throw new NoteError("no known key signed this note");
  return { text, signedBy };
}

export { decoder as utf8Decoder, hexOf };
