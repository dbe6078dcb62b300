import { describe, expect, it } from "vitest";
import { AddressError, chainAddressKind, encodeChainAddress, hash160, isDogecoinAddress, parseAddress } from "./address.ts";

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
