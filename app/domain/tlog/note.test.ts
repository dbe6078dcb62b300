import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cosign, formatCheckpoint, formatReceipt, parseCheckpoint, parseReceipt, verifyCosignatures } from "./checkpoint.ts";
import { isCanonicalJson, canonicalJson } from "./canonical.ts";
import { openCheckpoint, proveConsistent, proveIncluded, readAllEntries } from "./client.ts";
import { hashLeaf, rootOf } from "./merkle.ts";
import {
  ALG_COSIGNATURE_V1,
  formatSignerKey,
  formatVerifierKey,
  fromBase64,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signerFromSeed,
  signNote,
  toBase64,
  utf8,
  verifierOf,
} from "./note.ts";
import { decodeBundle, encodeBundle, parseTilePath, tilePath, tilesAt, type TileFetcher } from "./tiles.ts";

const TESSERA = path.resolve(import.meta.dirname, "../../../tests/vectors/tlog/tessera/testdata/log");
const TESSERA_KEY = "example.com/log/testdata+33d7b496+AeHTu4Q3hEIMHNqc6fASMsq3rKNx280NI+oO5xCFkkSx";
const TESSERA_SIGNER = "PRIVATE+KEY+example.com/log/testdata+33d7b496+AeymY/SZAX0jZcJ8enZ5FY1Dz+wTML2yWSkK+9DSF3eg";
const NEUMANN_SIGNER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const NEUMANN_VERIFIER = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const NEUMANN_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NEUMANN_LINE = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

const fileFetcher: TileFetcher = async (tile) => {
  const file = path.join(TESSERA, tile);
  return fs.existsSync(file) ? Uint8Array.from(fs.readFileSync(file)) : null;
};

describe("signed notes and keys", () => {
  it("re-signs Go's example note to the same bytes, and opens it with the verifier key", () => {
    const signer = parseSignerKey(NEUMANN_SIGNER);
    expect(formatVerifierKey(verifierOf(signer))).toBe(NEUMANN_VERIFIER);
    expect(formatSignerKey(signer)).toBe(NEUMANN_SIGNER);
    const note = signNote(NEUMANN_TEXT, signer);
    expect(note).toBe(`${NEUMANN_TEXT}\n${NEUMANN_LINE}`);
    expect(openNote(note, [parseVerifierKey(NEUMANN_VERIFIER)]).text).toBe(NEUMANN_TEXT);
  });

  it("opens C2SP's example note", () => {
    const verifier = parseVerifierKey("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k");
    const note =
      "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";
    expect(openNote(note, [verifier]).text).toBe("This is an example message.\n");
    expect(() => openNote(note.replace("example message", "example massage"), [verifier])).toThrow(/does not verify/);
  });

  it("reads key strings with + inside their base64, and refuses a wrong ID", () => {
    const sum = parseVerifierKey("sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8");
    expect(sum.name).toBe("sum.golang.org");
    expect(formatVerifierKey(sum)).toBe("sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8");
    expect(() => parseVerifierKey("sum.golang.org+033de0af+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8")).toThrow(/ID/);
    expect(parseVerifierKey(TESSERA_KEY).name).toBe("example.com/log/testdata");
  });

  it("checks base64 strictly: a lenient decoder's extras are refused", () => {
    expect(fromBase64("AQID")).toEqual(Uint8Array.of(1, 2, 3));
    for (const bad of ["AQI", "AQJ=", "AQ==\n", " AQID", "AQ-_", "AR==", "A===", "AQID===="]) expect(fromBase64(bad)).toBeNull();
    for (let n = 0; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    }
  });

  it("refuses a note whose only known signature is bad, or that no known key signed, and ignores unknown keys", () => {
    const a = signerFromSeed("a.example/log", new Uint8Array(32).fill(1));
    const b = signerFromSeed("b.example/log", new Uint8Array(32).fill(2));
    const note = signNote("hello\n", a);
    expect(() => openNote(note, [verifierOf(b)])).toThrow(/no known key/);
    const both = note + signNote("hello\n", b).split("\n\n")[1];
    expect(openNote(both, [verifierOf(a)]).signedBy.map((v) => v.name)).toEqual(["a.example/log"]);
    const forged = both.replace(
      /— b\.example\/log (\S+)/,
      (_m, sig: string) => `— b.example/log ${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}`,
    );
    expect(() => openNote(forged, [verifierOf(a), verifierOf(b)])).toThrow(/does not verify/);
    // 20 signature lines of unknown keys are fine.
    const many =
      note +
      Array.from(
        { length: 20 },
        (_, i) => signNote("hello\n", signerFromSeed(`w${i}`, new Uint8Array(32).fill(i + 10))).split("\n\n")[1],
      ).join("");
    expect(openNote(many, [verifierOf(a)]).text).toBe("hello\n");
  });
});

describe("the tessera test log, read through our own tile reader", () => {
  const verifier = parseVerifierKey(TESSERA_KEY);

  it("signs its checkpoints with the signer key we parse (re-signing gives the same bytes)", () => {
    const signer = parseSignerKey(TESSERA_SIGNER);
    for (let size = 0; size <= 15; size++) {
      const note = fs.readFileSync(path.join(TESSERA, `checkpoint.${size}`), "utf8");
      const { text } = openNote(note, [verifier]);
      expect(signNote(text, signer)).toBe(note);
    }
  });

  it("reads every size's entries through the tiles, recomputes each root, and proves every pair consistent", async () => {
    const checkpoints = Array.from({ length: 16 }, (_, size) =>
      openCheckpoint(fs.readFileSync(path.join(TESSERA, `checkpoint.${size}`), "utf8"), verifier),
    );
    const names = [
      "one",
      "two",
      "three",
      "four",
      "five",
      "six",
      "seven",
      "eight",
      "nine",
      "ten",
      "eleven",
      "twelve",
      "thirteen",
      "fourteen",
      "fifteen",
    ];
    for (const checkpoint of checkpoints.slice(1)) {
      const seen: string[] = [];
      const root = await readAllEntries(fileFetcher, checkpoint.size, (_first, entries) => {
        seen.push(...entries.map((entry) => new TextDecoder().decode(entry)));
      });
      expect(toBase64(root)).toBe(toBase64(checkpoint.root));
      expect(seen.length).toBe(checkpoint.size);
      for (let i = 0; i < checkpoint.size; i++) {
        await proveIncluded(fileFetcher, checkpoint, i, utf8(seen[i]));
      }
    }
    expect(checkpoints.length).toBe(16);
    expect(names.length).toBe(15);
    for (const older of checkpoints.slice(1)) {
      for (const newer of checkpoints.filter((c) => c.size >= older.size)) await proveConsistent(fileFetcher, older, newer);
    }
    // A root that is not the log's is caught.
    const forged = { ...checkpoints[5], root: rootOf([hashLeaf(utf8("x"))]) };
    await expect(proveConsistent(fileFetcher, forged, checkpoints[9])).rejects.toThrow();
  });

  it("reads and writes tile paths and bundles", () => {
    expect(tilePath(0, 1234067)).toBe("tile/0/x001/x234/067");
    expect(tilePath("entries", 5, 17)).toBe("tile/entries/005.p/17");
    expect(parseTilePath("tile/0/x001/x234/067")).toEqual({ level: 0, index: 1234067, width: 256 });
    expect(parseTilePath("tile/entries/000.p/3")).toEqual({ level: "entries", index: 0, width: 3 });
    for (const bad of ["tile/0/1234", "tile/0/x000/001", "tile/0/000.p/256", "tile/0/000.p/0", "tile/64/000", "tile/0/000.p/07"]) {
      expect(parseTilePath(bad)).toBeNull();
    }
    const sizes = (size: number) => [0, 1, 2, 3].map((level) => tilesAt(size, level));
    const [l0, l1, l2, l3] = sizes(70_000);
    expect(l0.length).toBe(274);
    expect(l0.at(-1)).toEqual({ level: 0, index: 273, width: 112 });
    expect(l1).toEqual([
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: 17 },
    ]);
    expect(l2).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(l3).toEqual([]);
    const bundle = fs.readFileSync(path.join(TESSERA, "tile/entries/000.p/3"));
    const entries = decodeBundle(Uint8Array.from(bundle));
    expect(entries.map((entry) => new TextDecoder().decode(entry))).toEqual(["one", "two", "three"]);
    expect(Buffer.from(encodeBundle(entries)).equals(bundle)).toBe(true);
    expect(() => encodeBundle([new Uint8Array(65_536)])).toThrow();
  });
});

describe("checkpoints, cosignatures, receipts and canonical JSON", () => {
  it("formats and parses a checkpoint, refusing a malformed one", () => {
    const root = hashLeaf(utf8("a"));
    const text = formatCheckpoint({ origin: "spooks.example/log", size: 12, root, extensions: [] });
    expect(parseCheckpoint(text)).toEqual({ origin: "spooks.example/log", size: 12, root, extensions: [] });
    for (const bad of ["spooks.example/log\n012\nAA==\n", "spooks example\n1\n" + toBase64(root) + "\n", "o\n1\n" + toBase64(root)]) {
      expect(() => parseCheckpoint(bad)).toThrow();
    }
  });

  it("cosigns (cosignature/v1) and verifies the witness's line", () => {
    const log = signerFromSeed("spooks.example/log", new Uint8Array(32).fill(7));
    const witness = signerFromSeed("witness.example", new Uint8Array(32).fill(8), ALG_COSIGNATURE_V1);
    const text = formatCheckpoint({ origin: log.name, size: 3, root: hashLeaf(utf8("x")), extensions: [] });
    const note = signNote(text, log) + cosign(text, witness, 1_700_000_000);
    expect(verifyCosignatures(note, [verifierOf(witness)])).toEqual([{ witness: verifierOf(witness), time: 1_700_000_000 }]);
    expect(openCheckpoint(note, verifierOf(log), { witnesses: [verifierOf(witness)], quorum: 1 }).size).toBe(3);
    expect(() => openCheckpoint(signNote(text, log), verifierOf(log), { witnesses: [verifierOf(witness)], quorum: 1 })).toThrow(
      /cosignature/,
    );
    // The witness key's ID is made with 0x04: its verifier key parses, and an Ed25519 note signature by it is not a cosignature.
    expect(parseVerifierKey(formatVerifierKey(verifierOf(witness))).alg).toBe(ALG_COSIGNATURE_V1);
  });

  it("writes and reads a tlog-proof receipt", () => {
    const receipt = { index: 5, proof: [hashLeaf(utf8("a")), hashLeaf(utf8("b"))], checkpoint: "o\n1\nAA==\n\n— o AAAA\n" };
    const text = formatReceipt(receipt);
    expect(text.startsWith("c2sp.org/tlog-proof@v1\nindex 5\n")).toBe(true);
    expect(parseReceipt(text)).toEqual({ ...receipt, extra: undefined });
  });

  it("canonicalises JSON per RFC 8785 (sorted by UTF-16 code units, ES numbers)", () => {
    expect(canonicalJson({ b: 1, a: [1e21, 1e-7, 0.5, "\u2028\u001f"], "\u{1F600}": 1, "\uE000": 2 })).toBe(
      '{"a":[1e+21,1e-7,0.5,"\u2028\\u001f"],"b":1,"\u{1F600}":1,"\uE000":2}',
    );
    expect(isCanonicalJson('{"a":1,"b":2}')).toBe(true);
    expect(isCanonicalJson('{"b":2,"a":1}')).toBe(false);
    expect(isCanonicalJson('{"a": 1}')).toBe(false);
  });
});
