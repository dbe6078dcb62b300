/**
 * Signed messages as wallets make them (DECISIONS "Signed actions"): a base64, 65-byte compact
 * recoverable secp256k1 signature over double-SHA256(magic || varint(len) || message).
 * MyDoge uses Bitcoin's magic; Dogecoin Core uses Dogecoin's. Both are accepted. MyDoge 1.0.1-1.1.1
 * returned the same 65 bytes as 130 hex characters instead of base64: accepted too (docs/decisions.md
 * "Wallet"). Used signatures are keyed by address and message, so re-encoding one is still a replay.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { addressFromPublicKey, parseAddress, type Network } from "./address.ts";

export const MESSAGE_MAGICS = {
  bitcoin: "\x18Bitcoin Signed Message:\n",
  dogecoin: "\x19Dogecoin Signed Message:\n",
} as const;
export type Magic = keyof typeof MESSAGE_MAGICS;

export class SignatureError extends Error {}

function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
}

export function messageHash(message: string, magic: Magic): Uint8Array {
  const prefix = new TextEncoder().encode(MESSAGE_MAGICS[magic]);
  const body = new TextEncoder().encode(message);
  const length = varint(body.length);
  const data = new Uint8Array(prefix.length + length.length + body.length);
  data.set(prefix, 0);
  data.set(length, prefix.length);
  data.set(body, prefix.length + length.length);
  return sha256(sha256(data));
}

/** 65 bytes as hex (MyDoge 1.0.1-1.1.1). Base64 of 65 bytes is 88 characters, so the two never overlap. */
const HEX_SIGNATURE = /^[0-9a-fA-F]{130}$/;

/** The signature's 65 bytes, from base64 (MyDoge 1.2+, Dogecoin Core) or 130 hex characters (older MyDoge). */
export function signatureBytes(signature: string): Uint8Array {
  if (HEX_SIGNATURE.test(signature)) return hex.decode(signature.toLowerCase());
  try {
    return base64.decode(signature);
  } catch {
    throw new SignatureError("Invalid signature: not base64 (or 130 hex characters)");
  }
}

function decodeSignature(signature: string): { header: number; compact: Uint8Array } {
  const bytes = signatureBytes(signature);
  if (bytes.length !== 65) throw new SignatureError("Invalid signature: expected 65 bytes");
  const header = bytes[0];
  if (header < 27 || header > 34) throw new SignatureError("Invalid signature: unknown header byte");
  return { header, compact: bytes.slice(1) };
}

function recoverAddress(hash: Uint8Array, header: number, compact: Uint8Array, network: Network): string | null {
  const compressed = header >= 31;
  const recovery = (header - 27) & 3;
  try {
    const point = secp256k1.Signature.fromBytes(compact, "compact").addRecoveryBit(recovery).recoverPublicKey(hash);
    return addressFromPublicKey(point.toBytes(compressed), network);
  } catch {
    return null;
  }
}

/**
 * Throws SignatureError unless `signature` over `message` was made by the key behind `address`,
 * under either magic. Returns the magic that matched.
 */
export function verifySignedMessage(message: string, address: string, signature: string): Magic {
  let network: Network;
  try {
    network = parseAddress(address).network;
  } catch (error) {
    throw new SignatureError((error as Error).message);
  }
  const { header, compact } = decodeSignature(signature);
  for (const magic of Object.keys(MESSAGE_MAGICS) as Magic[]) {
    if (recoverAddress(messageHash(message, magic), header, compact, network) === address) return magic;
  }
  throw new SignatureError("Invalid signature: it was not made by this address");
}

export function isValidSignedMessage(message: string, address: string, signature: string): boolean {
  try {
    verifySignedMessage(message, address, signature);
    return true;
  } catch {
    return false;
  }
}

/** Signs like a wallet does (the demo wallet and tests use this; the server only verifies). */
export function signMessage(
  privateKey: Uint8Array,
  message: string,
  { magic = "bitcoin", compressed = true }: { magic?: Magic; compressed?: boolean } = {},
): string {
  const recovered = secp256k1.sign(messageHash(message, magic), privateKey, {
    prehash: false,
    format: "recovered",
  });
  const out = new Uint8Array(65);
  out[0] = 27 + recovered[0] + (compressed ? 4 : 0);
  out.set(recovered.subarray(1), 1);
  return base64.encode(out);
}

export function newPrivateKey(): Uint8Array {
  return secp256k1.utils.randomSecretKey();
}

export function addressOfPrivateKey(privateKey: Uint8Array, network: Network = "mainnet", compressed = true): string {
  return addressFromPublicKey(secp256k1.getPublicKey(privateKey, compressed), network);
}
