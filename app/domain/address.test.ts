import { describe, expect, it } from "vitest";
import { AddressError, isDogecoinAddress, parseAddress } from "./address.ts";

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
