/**
 * Dogecoin addresses: base58check over a version byte + a 20-byte hash. Wallets sign with P2PKH addresses
 * (hash160 of a public key); an inscription can also sit at a P2SH address (hash160 of a script), which no
 * wallet signature can speak for. `parseAddress` accepts only P2PKH; `chainAddressKind` tells both apart
 * for one chain as wonky-ord names it.
 */
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";

const base58check = createBase58check(sha256);

export const ADDRESS_VERSIONS = { mainnet: 0x1e, testnet: 0x71 } as const;
export type Network = keyof typeof ADDRESS_VERSIONS;

export type ParsedAddress = { network: Network; version: number; hash160: Uint8Array };

export class AddressError extends Error {}

/** Decodes and checks an address; throws AddressError saying what is wrong. */
export function parseAddress(address: string): ParsedAddress {
  if (typeof address !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{25,36}$/.test(address)) {
    throw new AddressError("Invalid Dogecoin address: not base58");
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw new AddressError("Invalid Dogecoin address: bad checksum");
  }
  if (payload.length !== 21) throw new AddressError("Invalid Dogecoin address: wrong length");
  const version = payload[0];
  const network = (Object.keys(ADDRESS_VERSIONS) as Network[]).find((n) => ADDRESS_VERSIONS[n] === version);
  if (!network) throw new AddressError("Invalid Dogecoin address: not a P2PKH address of mainnet or testnet");
  return { network, version, hash160: payload.slice(1) };
}

export function isDogecoinAddress(address: string): boolean {
  try {
    parseAddress(address);
    return true;
  } catch {
    return false;
  }
}

export function hash160(bytes: Uint8Array): Uint8Array {
  return ripemd160(sha256(bytes));
}

export function addressFromPublicKey(publicKey: Uint8Array, network: Network = "mainnet"): string {
  const payload = new Uint8Array(21);
  payload[0] = ADDRESS_VERSIONS[network];
  payload.set(hash160(publicKey), 1);
  return base58check.encode(payload);
}

/** Chains as wonky-ord names them in its `chain` field. */
export const ORD_CHAINS = ["mainnet", "testnet", "signet", "regtest"] as const;
export type OrdChain = (typeof ORD_CHAINS)[number];
export type AddressKind = "p2pkh" | "p2sh";

/** Dogecoin Core's base58 prefixes; Dogecoin has no signet, which wonky-ord gives regtest's prefixes. */
const CHAIN_VERSIONS: Record<OrdChain, Record<AddressKind, number>> = {
  mainnet: { p2pkh: 0x1e, p2sh: 0x16 },
  testnet: { p2pkh: 0x71, p2sh: 0xc4 },
  regtest: { p2pkh: 0x6f, p2sh: 0xc4 },
  signet: { p2pkh: 0x6f, p2sh: 0xc4 },
};

/** Whether `address` is a P2PKH or P2SH address of `chain`; null when it is neither (or not an address). */
export function chainAddressKind(address: string, chain: OrdChain): AddressKind | null {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21) return null;
  const versions = CHAIN_VERSIONS[chain];
  if (payload[0] === versions.p2pkh) return "p2pkh";
  if (payload[0] === versions.p2sh) return "p2sh";
  return null;
}

/** The address of a 20-byte hash on `chain`: a public key's hash160 (P2PKH) or a script's (P2SH). */
export function encodeChainAddress(hash: Uint8Array, kind: AddressKind, chain: OrdChain = "mainnet"): string {
  if (hash.length !== 20) throw new AddressError("an address hash is 20 bytes");
  const payload = new Uint8Array(21);
  payload[0] = CHAIN_VERSIONS[chain][kind];
  payload.set(hash, 1);
  return base58check.encode(payload);
}
