import { secp256k1 } from "@noble/curves/secp256k1.js";
// bitcoinjs-message is the independent signer (what MyDoge itself uses).
import bitcoinMessage from "bitcoinjs-message";
import { describe, expect, it } from "vitest";
import { encodeChainAddress, hash160, networkOfChain, ORD_CHAINS } from "./address.ts";
import { addressOfPrivateKey } from "./signature.ts";
import { isValidSignedMessage, signMessage, SignatureError, verifySignedMessage } from "./signature.ts";
import { base64 } from "@scure/base";

const key = secp256k1.utils.randomSecretKey();
const otherKey = secp256k1.utils.randomSecretKey();
const address = addressOfPrivateKey(key);
const uncompressedAddress = addressOfPrivateKey(key, "mainnet", false);
const testnetAddress = addressOfPrivateKey(key, "testnet");
const message = "Staking Spook #12 for Spook Points. Timestamp: 2026-11-21T10:00:00.000Z";

function independentSign(text: string, magic: string, compressed = true, k = key): string {
  return bitcoinMessage.sign(text, Buffer.from(k), compressed, magic).toString("base64");
}

describe("verifySignedMessage", () => {
  it("accepts MyDoge's format (Bitcoin magic) from an independent signer", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n");
    expect(verifySignedMessage(message, address, signature)).toBe("bitcoin");
  });

  it("accepts Dogecoin Core's format (Dogecoin magic) from an independent signer", () => {
    const signature = independentSign(message, "\x19Dogecoin Signed Message:\n");
    expect(verifySignedMessage(message, address, signature)).toBe("dogecoin");
  });

  it("accepts uncompressed-key signatures against the uncompressed address only", () => {
    const signature = independentSign(message, "\x19Dogecoin Signed Message:\n", false);
    expect(verifySignedMessage(message, uncompressedAddress, signature)).toBe("dogecoin");
    expect(isValidSignedMessage(message, address, signature)).toBe(false);
  });

  it("derives testnet addresses with version 0x71", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n");
    expect(testnetAddress.startsWith("n")).toBe(true);
    expect(verifySignedMessage(message, testnetAddress, signature)).toBe("bitcoin");
  });

  it("verifies a holder as the ord server names them on every chain (regtest and signet too: 0x71)", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n");
    const keyHash = hash160(secp256k1.getPublicKey(key, true));
    for (const chain of ORD_CHAINS) {
      const holder = encodeChainAddress(keyHash, "p2pkh", chain);
      expect(holder).toBe(addressOfPrivateKey(key, networkOfChain(chain)));
      expect(verifySignedMessage(message, holder, signature)).toBe("bitcoin");
    }
  });

  it("agrees with the independent verifier on our own signatures", () => {
    for (const magic of ["bitcoin", "dogecoin"] as const) {
      const signature = signMessage(key, message, { magic });
      const prefix = magic === "bitcoin" ? "\x18Bitcoin Signed Message:\n" : "\x19Dogecoin Signed Message:\n";
      const legacyAddress = bitcoinMessage.verify(message, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", signature, prefix);
      expect(legacyAddress).toBe(false); // a different address never verifies
      expect(verifySignedMessage(message, address, signature)).toBe(magic);
    }
  });

  it("refuses a tampered message", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n");
    expect(() => verifySignedMessage(message.replace("#12", "#13"), address, signature)).toThrow(SignatureError);
  });

  it("refuses a signature from another key", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n", true, otherKey);
    expect(() => verifySignedMessage(message, address, signature)).toThrow(/not made by this address/);
  });

  it("refuses truncated, non-base64 and wrong-header signatures with a reason", () => {
    const bytes = base64.decode(independentSign(message, "\x18Bitcoin Signed Message:\n"));
    expect(() => verifySignedMessage(message, address, base64.encode(bytes.slice(0, 64)))).toThrow(/65 bytes/);
    expect(() => verifySignedMessage(message, address, "not base64!!")).toThrow(/base64/);
    const wrongHeader = bytes.slice();
    wrongHeader[0] = 42;
    expect(() => verifySignedMessage(message, address, base64.encode(wrongHeader))).toThrow(/header/);
    const flipped = bytes.slice();
    flipped[10] ^= 0xff;
    expect(isValidSignedMessage(message, address, base64.encode(flipped))).toBe(false);
  });

  it("refuses a malformed or wrong-version address", () => {
    const signature = independentSign(message, "\x18Bitcoin Signed Message:\n");
    expect(() => verifySignedMessage(message, address.slice(0, -1) + (address.endsWith("a") ? "b" : "a"), signature)).toThrow(/checksum/);
    expect(() => verifySignedMessage(message, "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", signature)).toThrow(/P2PKH/);
  });
});

describe("hex signatures (MyDoge 1.0.1-1.1.1: the same 65 bytes as 130 hex characters)", () => {
  const bitcoinMagic = "\x18Bitcoin Signed Message:\n";
  const toHex = (signature: string) => Buffer.from(signature, "base64").toString("hex");

  it("accepts an independent signer's signature converted to hex, lower or upper case", () => {
    const signature = toHex(independentSign(message, bitcoinMagic));
    expect(signature).toMatch(/^[0-9a-f]{130}$/);
    expect(verifySignedMessage(message, address, signature)).toBe("bitcoin");
    expect(verifySignedMessage(message, address, signature.toUpperCase())).toBe("bitcoin");
    const dogecoin = toHex(independentSign(message, "\x19Dogecoin Signed Message:\n"));
    expect(verifySignedMessage(message, address, dogecoin)).toBe("dogecoin");
  });

  it("accepts the fixed vector of REAL-WORLD.md in hex", () => {
    const vector = "H6k+dZwJ8oOei3PCSpdj603fDvhlhQ+sqaFNIDvo/bI+Xh6zyIKGzZpyud6YhZ1a5mcrwMVtTWL+VXq/hC5Zj7s=";
    const vectorAddress = "DFpN6QqFfUm3gKNaxN6tNcab1FArL9cZLE";
    expect(isValidSignedMessage("vires is numeris", vectorAddress, vector)).toBe(true);
    expect(isValidSignedMessage("vires is numeris", vectorAddress, toHex(vector))).toBe(true);
    expect(isValidSignedMessage("vires is numerus", vectorAddress, toHex(vector))).toBe(false);
  });

  it("refuses a tampered hex signature, a hex signature of another message or key, and wrong lengths", () => {
    const signature = toHex(independentSign(message, bitcoinMagic));
    const flipped = signature.slice(0, 40) + (signature[40] === "0" ? "1" : "0") + signature.slice(41);
    expect(isValidSignedMessage(message, address, flipped)).toBe(false);
    expect(() => verifySignedMessage(message.replace("#12", "#13"), address, signature)).toThrow(SignatureError);
    const foreign = toHex(independentSign(message, bitcoinMagic, true, otherKey));
    expect(() => verifySignedMessage(message, address, foreign)).toThrow(/not made by this address/);
    expect(() => verifySignedMessage(message, address, signature.slice(0, 128))).toThrow(SignatureError);
    expect(() => verifySignedMessage(message, address, `${signature}00`)).toThrow(SignatureError);
    expect(() => verifySignedMessage(message, address, `${signature.slice(0, 129)}g`)).toThrow(SignatureError);
  });
});
