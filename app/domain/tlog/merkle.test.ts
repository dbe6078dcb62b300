import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  appendLeaf,
  consistencyProof,
  emptyFrontier,
  EMPTY_ROOT,
  frontierRoot,
  hashLeaf,
  inclusionProof,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type Frontier,
  type Hash,
  type HashReader,
} from "./merkle.ts";
import { fromBase64 } from "./note.ts";
import { treeRootOfLeaves } from "./client.ts";

const VECTORS = path.resolve(import.meta.dirname, "../../../tests/vectors/tlog/merkle/testdata");
const b64 = (text: string) => fromBase64(text)!;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

function probes(kind: "inclusion" | "consistency"): [string, Record<string, unknown>][] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".json")) files.push(full);
    }
  };
  walk(path.join(VECTORS, kind));
  return files.sort().map((file) => [path.relative(VECTORS, file), JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>]);
}

const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map((text) =>
  Uint8Array.from(Buffer.from(text, "hex")),
);
const ROOT_PREFIXES = ["6e340b9c", "fac54203", "aeb6bcfe", "d37ee418", "4e3bbb1f", "76e67dad", "ddb89be4", "5dc9da79"];

/** A reader over an in-memory list of leaf hashes: complete subtrees hashed on demand. */
function memoryReader(leaves: readonly Hash[]): HashReader {
  return async (level, index) => rootOf(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level));
}

describe("RFC 9162 Merkle trees", () => {
  it("hashes the empty tree, leaves and the roots of sizes 1..8 as the vectors say", () => {
    expect(hex(EMPTY_ROOT)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const leafHashes = LEAVES.map(hashLeaf);
    ROOT_PREFIXES.forEach((prefix, i) => expect(hex(rootOf(leafHashes.slice(0, i + 1)))).toMatch(new RegExp(`^${prefix}`)));
  });

  it.each(probes("inclusion"))("inclusion probe %s", (_name, probe) => {
    const check = () =>
      verifyInclusion(
        probe.leafIdx as number,
        probe.treeSize as number,
        b64((probe.leafHash as string) ?? ""),
        ((probe.proof as string[] | null) ?? []).map(b64),
        b64((probe.root as string) ?? ""),
      );
    if (probe.wantErr) expect(check).toThrow();
    else expect(check).not.toThrow();
  });

  it.each(probes("consistency"))("consistency probe %s", (_name, probe) => {
    const check = () =>
      verifyConsistency(
        probe.size1 as number,
        probe.size2 as number,
        b64((probe.root1 as string) ?? ""),
        b64((probe.root2 as string) ?? ""),
        ((probe.proof as string[] | null) ?? []).map(b64),
      );
    if (probe.wantErr) expect(check).toThrow();
    else expect(check).not.toThrow();
  });

  it("makes inclusion and consistency proofs that verify, for every index and pair of sizes up to 40", async () => {
    const leaves = Array.from({ length: 40 }, (_, i) => hashLeaf(Uint8Array.of(i, i * 7)));
    const read = memoryReader(leaves);
    for (let size = 1; size <= leaves.length; size++) {
      const root = rootOf(leaves.slice(0, size));
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(read, index, size);
        verifyInclusion(index, size, leaves[index], proof, root);
        // A proof says nothing about another leaf.
        expect(() => verifyInclusion(index, size, leaves[(index + 1) % leaves.length], proof, root)).toThrow();
      }
      for (let from = 1; from <= size; from++) {
        const proof = await consistencyProof(read, from, size);
        verifyConsistency(from, size, rootOf(leaves.slice(0, from)), root, proof);
        if (from < size) expect(() => verifyConsistency(from, size, rootOf(leaves.slice(1, from + 1)), root, proof)).toThrow();
      }
    }
  });

  it("keeps a frontier whose root is the tree's, and reports each complete subtree once", () => {
    const leaves = Array.from({ length: 70 }, (_, i) => hashLeaf(Uint8Array.of(i)));
    let frontier: Frontier = emptyFrontier();
    const nodes = new Map<string, Hash>();
    for (const [i, leaf] of leaves.entries()) {
      frontier = appendLeaf(frontier, leaf, (level, index, hash) => nodes.set(`${level}/${index}`, hash));
      expect(hex(frontierRoot(frontier))).toBe(hex(rootOf(leaves.slice(0, i + 1))));
    }
    expect(hex(nodes.get("6/0")!)).toBe(hex(rootOf(leaves.slice(0, 64))));
    expect(hex(treeRootOfLeaves(leaves))).toBe(hex(rootOf(leaves)));
  });

  it("reads sizes and indexes beyond 32 bits without cutting them", async () => {
    const size = 2 ** 40 + 5;
    const read: HashReader = async (level, index) => hashLeaf(Uint8Array.from(Buffer.from(`${level}/${index}`)));
    const proof = await inclusionProof(read, size - 1, size);
    expect(proof.length).toBeGreaterThan(0);
    const consistency = await consistencyProof(read, 2 ** 33 + 1, size);
    expect(consistency.length).toBeGreaterThan(30);
  });
});
