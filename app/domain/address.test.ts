import { describe, expect, it } from "vitest";
import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, createBase58check } from "@scure/base";
import {
  AddressError,
  chainAddressKind,
  encodeChainAddress,
  encodeWitnessAddress,
  hash160,
  isDogecoinAddress,
  networkOfChain,
  ORD_CHAINS,
  parseAddress,
  witnessProgramOf,
} from "./address.ts";

describe("parseAddress", () => {
  it("accepts mainnet (D…) and testnet (n…) P2PKH addresses", () => {
    // Dogecoin's well-known donation address and version 0x71 over hash160 = 20 × 0x07 (encoded by bs58check).
    expect(parseAddress("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L").network).toBe("mainnet");
    expect(parseAddress("nUqKQtZkcDR28K6aAeVuFeFY5pYZtf92ht").network).toBe("testnet");
  });

  it("names what is wrong", () => {
    expect(() => parseAddress("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7M")).toThrow(/checksum/);
    expect(() => parseAddress("0OIl")).toThrow(/base58/);
    expect(() => parseAddress("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")).toThrow(AddressError);
    expect(isDogecoinAddress("")).toBe(false);
  });
});

describe("chainAddressKind", () => {
  const hash = hash160(new TextEncoder().encode("spooks address test"));

  it("tells P2PKH (D…) from P2SH (9…/A…) on mainnet, and refuses the other network's addresses", () => {
    const p2pkh = encodeChainAddress(hash, "p2pkh");
    const p2sh = encodeChainAddress(hash, "p2sh");
    expect(p2pkh).toMatch(/^D/);
    expect(p2sh).toMatch(/^[9A]/);
    expect(chainAddressKind(p2pkh, "mainnet")).toBe("p2pkh");
    expect(chainAddressKind(p2sh, "mainnet")).toBe("p2sh");
    expect(chainAddressKind(p2pkh, "testnet")).toBeNull();
    expect(chainAddressKind(encodeChainAddress(hash, "p2pkh", "testnet"), "mainnet")).toBeNull();
    expect(chainAddressKind(encodeChainAddress(hash, "p2sh", "testnet"), "testnet")).toBe("p2sh");
    expect(chainAddressKind("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", "mainnet")).toBe("p2pkh");
    expect(parseAddress(p2pkh).network).toBe("mainnet");
    expect(isDogecoinAddress(p2sh)).toBe(false); // a P2SH address never signs
  });

  it("answers null for text that is no address", () => {
    expect(chainAddressKind("", "mainnet")).toBeNull();
    expect(chainAddressKind("DH5yaieqoZN36fDVciNyRueRGvGLR3mr7M", "mainnet")).toBeNull();
    expect(() => encodeChainAddress(new Uint8Array(19), "p2sh")).toThrow(AddressError);
  });
});

describe("test chains (wonky-ord's Dogecoin library: one prefix set for testnet, signet and regtest)", () => {
  const hash = hash160(new TextEncoder().encode("test chains"));

  it("P2PKH is 0x71 (n…) and P2SH 0xc4 on every test chain; Dogecoin Core's regtest 0x6f is no address of any", () => {
    const coreRegtest = createBase58check(sha256).encode(Uint8Array.from([0x6f, ...hash]));
    for (const chain of ["testnet", "signet", "regtest"] as const) {
      const p2pkh = encodeChainAddress(hash, "p2pkh", chain);
      expect(p2pkh).toMatch(/^n/);
      expect(chainAddressKind(p2pkh, chain)).toBe("p2pkh");
      expect(chainAddressKind(encodeChainAddress(hash, "p2sh", chain), chain)).toBe("p2sh");
      expect(chainAddressKind(coreRegtest, chain)).toBeNull();
      expect(parseAddress(p2pkh).network).toBe(networkOfChain(chain)); // the holder ord names can sign
    }
    expect(isDogecoinAddress(coreRegtest)).toBe(false);
  });

  it("every chain's P2PKH holders sign with the network networkOfChain names", () => {
    for (const chain of ORD_CHAINS) {
      expect(parseAddress(encodeChainAddress(hash, "p2pkh", chain)).network).toBe(networkOfChain(chain));
    }
  });
});

describe("witness addresses (bc1…)", () => {
  const program20 = hash160(new TextEncoder().encode("witness"));
  const program32 = sha256(new TextEncoder().encode("taproot"));

  it("round-trips BIP 173 / BIP 350 vectors' shapes per chain: bc, tb (testnet, signet), bcrt (regtest)", () => {
    // BIP 173's P2WPKH vector: the hash160 of its public key.
    const bip173 = Uint8Array.from(Buffer.from("751e76e8199196d454941c45d1b3a323f1433bd6", "hex"));
    expect(encodeWitnessAddress({ version: 0, program: bip173 })).toBe("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    expect(chainAddressKind("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "mainnet")).toBe("witness");
    for (const [chain, prefix] of [
      ["mainnet", "bc1"],
      ["testnet", "tb1"],
      ["signet", "tb1"],
      ["regtest", "bcrt1"],
    ] as const) {
      for (const [version, program] of [
        [0, program20],
        [0, program32],
        [1, program32],
      ] as const) {
        const address = encodeWitnessAddress({ version, program }, chain);
        expect(address.startsWith(prefix)).toBe(true);
        expect(witnessProgramOf(address, chain)).toEqual({ version, program });
        expect(chainAddressKind(address, chain)).toBe("witness");
      }
    }
  });

  it("refuses another chain's prefix, the wrong checksum variant, bad lengths, mixed case and a version over 16", () => {
    const v0 = encodeWitnessAddress({ version: 0, program: program20 });
    expect(chainAddressKind(v0, "testnet")).toBeNull();
    expect(chainAddressKind(v0.toUpperCase(), "mainnet")).toBeNull();
    expect(chainAddressKind(`${v0.slice(0, -1)}${v0.endsWith("q") ? "p" : "q"}`, "mainnet")).toBeNull();
    expect(() => encodeWitnessAddress({ version: 0, program: new Uint8Array(25) })).toThrow(AddressError);
    expect(() => encodeWitnessAddress({ version: 17, program: program32 })).toThrow(AddressError);
    // A version-1 program in bech32 (not bech32m) is not what rust-bitcoin prints.
    expect(witnessProgramOf(bech32.encode("bc", [1, ...bech32.toWords(program32)], 90), "mainnet")).toBeNull();
  });
});
