/**
 * Output scripts of the simulated chain, as hex: what an inscription's output pays, and the address wonky-ord
 * derives from it (rust-bitcoin's `Address::from_script`: P2PKH, P2SH and witness programs, the last named
 * in bech32 (`bc1…`) although Dogecoin has no segwit; P2PK, bare multisig and other scripts have no address).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import { chainAddressKind, encodeChainAddress, witnessProgramOf, type OrdChain } from "../../app/domain/address.ts";

export type OutputScript = "p2pkh" | "p2sh" | "witness" | "p2pk" | "multisig" | "nonstandard";
export type AddresslessScript = Exclude<OutputScript, "p2pkh" | "p2sh" | "witness">;
export const ADDRESSLESS_SCRIPTS = ["p2pk", "multisig", "nonstandard"] as const satisfies readonly AddresslessScript[];

export type Output = { script: OutputScript; scriptHex: string; address: string | null };

const base58check = createBase58check(sha256);
const bytes = (label: string) => sha256(new TextEncoder().encode(label));
const publicKeyHex = (seed: string) => bytesToHex(secp256k1.getPublicKey(bytes(seed), true));

/** The output paying `address` on `chain`; throws when it is not a P2PKH, P2SH or witness address of that chain. */
export function outputForAddress(address: string, chain: OrdChain): Output {
  const kind = chainAddressKind(address, chain);
  if (!kind) throw new Error(`not a Dogecoin address on ${chain} (P2PKH, P2SH or witness): ${address}`);
  const witness = witnessProgramOf(address, chain);
  if (witness) {
    // OP_0 or OP_1..OP_16, then one push of the program.
    const versionOp = witness.version === 0 ? 0 : 0x50 + witness.version;
    const scriptHex = `${versionOp.toString(16).padStart(2, "0")}${witness.program.length.toString(16).padStart(2, "0")}${bytesToHex(witness.program)}`;
    return { script: "witness", scriptHex, address };
  }
  const hash = bytesToHex(base58check.decode(address).subarray(1));
  const scriptHex = kind === "p2pkh" ? `76a914${hash}88ac` : `a914${hash}87`;
  return { script: kind, scriptHex, address };
}

/** An output with no address: P2PK, 1-of-2 bare multisig, or a hash puzzle (nonstandard); keys from `seed`. */
export function addresslessOutput(script: AddresslessScript, seed: string): Output {
  const key = (n: number) => publicKeyHex(`spooks-sim-key:${seed}:${n}`);
  const scriptHex =
    script === "p2pk"
      ? `21${key(0)}ac`
      : script === "multisig"
        ? `5121${key(0)}21${key(1)}52ae`
        : `aa20${bytesToHex(bytes(`spooks-sim-puzzle:${seed}`))}87`; // OP_HASH256 <32 bytes> OP_EQUAL
  return { script, scriptHex, address: null };
}

/** The same payee as `address` (a P2PKH one) on another network: what a server on the wrong chain would name. */
export function otherNetworkAddress(address: string, chain: OrdChain): string {
  const hash = base58check.decode(address).subarray(1);
  return encodeChainAddress(hash, "p2pkh", chain === "mainnet" ? "testnet" : "mainnet");
}
