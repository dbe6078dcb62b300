/** Dogecoin P2PKH addresses: base58check over version byte + hash160(pubkey). */
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
