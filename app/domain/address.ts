/**
 * Dogecoin addresses: base58check over a version byte + a 20-byte hash. Wallets sign with P2PKH addresses
 * (hash160 of a public key); an inscription can also sit at a P2SH address (hash160 of a script), which no
 * wallet signature can speak for, or, rarely, at a witness-program-shaped script that wonky-ord names with
 * a bech32 address (`bc1…`). `parseAddress` accepts only P2PKH; `chainAddressKind` tells the kinds apart
 * for one chain as wonky-ord names it.
 */
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, bech32m, createBase58check } from "@scure/base";

const base58check = createBase58check(sha256);

/**
 * P2PKH versions of the wallets that sign. `testnet` (0x71, "n…") is every test chain: wonky-ord's Dogecoin
 * library prints 0x71 on testnet, signet and regtest alike, so a holder it names on any of them signs with
 * this version (Dogecoin Core's own regtest 0x6f is not what ord prints, and is refused).
 */
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
/** Base58 address kinds (a 20-byte hash behind a version byte). */
export type AddressKind = "p2pkh" | "p2sh";
/** What an address of a chain can name: a base58 kind, or a witness program (bech32, never signable here). */
export type ChainAddressKind = AddressKind | "witness";

/** The network whose P2PKH addresses sign for holders on `chain` (see ADDRESS_VERSIONS). */
export const networkOfChain = (chain: OrdChain): Network => (chain === "mainnet" ? "mainnet" : "testnet");

/**
 * wonky-ord's prefixes (its Dogecoin fork of rust-bitcoin 0.29, `Address`'s Display): P2PKH 0x1e / P2SH
 * 0x16 on mainnet, 0x71 / 0xc4 on testnet, signet AND regtest; bech32 parts `bc`, `tb` (testnet, signet)
 * and `bcrt` (regtest) for witness programs.
 */
const CHAIN_VERSIONS: Record<OrdChain, Record<AddressKind, number>> = {
  mainnet: { p2pkh: ADDRESS_VERSIONS.mainnet, p2sh: 0x16 },
  testnet: { p2pkh: ADDRESS_VERSIONS.testnet, p2sh: 0xc4 },
  regtest: { p2pkh: ADDRESS_VERSIONS.testnet, p2sh: 0xc4 },
  signet: { p2pkh: ADDRESS_VERSIONS.testnet, p2sh: 0xc4 },
};
const WITNESS_PREFIXES: Record<OrdChain, string> = { mainnet: "bc", testnet: "tb", signet: "tb", regtest: "bcrt" };

/** Whether `address` is a P2PKH, P2SH or witness address of `chain`; null when it is none (or not an address). */
export function chainAddressKind(address: string, chain: OrdChain): ChainAddressKind | null {
  if (witnessProgramOf(address, chain)) return "witness";
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

export type WitnessProgram = { version: number; program: Uint8Array };

/**
 * A witness address of `chain` (BIP 173 bech32 for version 0, BIP 350 bech32m for 1-16), decoded; null when
 * it is not one. Version 0 programs are 20 or 32 bytes, the others 2-40 (rust-bitcoin's `is_witness_program`).
 */
export function witnessProgramOf(address: string, chain: OrdChain): WitnessProgram | null {
  if (address !== address.toLowerCase() || !address.startsWith(`${WITNESS_PREFIXES[chain]}1`)) return null;
  for (const coding of [bech32, bech32m]) {
    const decoded = coding.decodeUnsafe(address, 90);
    if (!decoded || decoded.prefix !== WITNESS_PREFIXES[chain] || decoded.words.length === 0) continue;
    const [version, ...words] = decoded.words;
    if (version > 16 || (version === 0) !== (coding === bech32)) continue;
    const program = coding.fromWordsUnsafe(words);
    if (!program || program.length < 2 || program.length > 40) continue;
    if (version === 0 && program.length !== 20 && program.length !== 32) continue;
    return { version, program };
  }
  return null;
}

/** The address wonky-ord prints for a witness program on `chain`. */
export function encodeWitnessAddress({ version, program }: WitnessProgram, chain: OrdChain = "mainnet"): string {
  if (!Number.isInteger(version) || version < 0 || version > 16) throw new AddressError("a witness version is 0-16");
  if (program.length < 2 || program.length > 40 || (version === 0 && program.length !== 20 && program.length !== 32)) {
    throw new AddressError("not a witness program's length");
  }
  const coding = version === 0 ? bech32 : bech32m;
  return coding.encode(WITNESS_PREFIXES[chain], [version, ...coding.toWords(program)], 90);
}

/** The address of a 20-byte hash on `chain`: a public key's hash160 (P2PKH) or a script's (P2SH). */
export function encodeChainAddress(hash: Uint8Array, kind: AddressKind, chain: OrdChain = "mainnet"): string {
  if (hash.length !== 20) throw new AddressError("an address hash is 20 bytes");
  const payload = new Uint8Array(21);
  payload[0] = CHAIN_VERSIONS[chain][kind];
  payload.set(hash, 1);
  return base58check.encode(payload);
}
