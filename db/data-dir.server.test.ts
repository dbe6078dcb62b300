import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { secureDataDir, tightenDataDir } from "./data-dir.server.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tree(rootMode: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-data-dir-"));
  made.push(root);
  fs.mkdirSync(path.join(root, "pglite", "base"), { recursive: true });
  fs.writeFileSync(path.join(root, "pglite", "base", "1"), "x");
  fs.writeFileSync(path.join(root, "embedded.json"), "{}");
  for (const entry of ["pglite", "pglite/base"]) fs.chmodSync(path.join(root, entry), 0o755);
  for (const entry of ["pglite/base/1", "embedded.json"]) fs.chmodSync(path.join(root, entry), 0o666);
  fs.chmodSync(root, rootMode);
  return root;
}

const mode = (file: string) => fs.lstatSync(file).mode & 0o777;

describe("DATA_DIR made owner-only", () => {
  it("tightens every folder to 0700 and file to 0600, counting what other accounts could reach", () => {
    const root = tree(0o755);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-outside-"));
    made.push(outside);
    fs.writeFileSync(path.join(outside, "theirs"), "x", { mode: 0o644 });
    fs.chmodSync(path.join(outside, "theirs"), 0o644);
    fs.symlinkSync(path.join(outside, "theirs"), path.join(root, "link"));

    expect(tightenDataDir(root)).toEqual({ widened: 5, tightened: 5, checked: 5 });
    expect([root, "pglite", "pglite/base"].map((entry) => mode(path.resolve(root, entry)))).toEqual([0o700, 0o700, 0o700]);
    expect(["pglite/base/1", "embedded.json"].map((entry) => mode(path.join(root, entry)))).toEqual([0o600, 0o600]);
    expect(mode(path.join(outside, "theirs"))).toBe(0o644); // a link is never followed
    expect(tightenDataDir(root)).toEqual({ widened: 0, tightened: 0, checked: 5 });
  });

  it("tightens files left open inside an owner-only folder without a warning (nobody else could reach them)", () => {
    const root = tree(0o700);
    const warnings: unknown[] = [];
    secureDataDir(root, (line) => warnings.push(line));
    expect(warnings).toEqual([]);
    expect(mode(path.join(root, "pglite/base/1"))).toBe(0o600);

    fs.chmodSync(root, 0o711); // enterable by others: now what is open under it was reachable
    fs.chmodSync(path.join(root, "embedded.json"), 0o644);
    secureDataDir(root, (line) => warnings.push(line));
    expect(warnings).toEqual([expect.objectContaining({ msg: expect.stringMatching(/owner-only/), dataDir: root, widened: 2 })]);
  });

  it("creates a missing DATA_DIR 0700", () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "spooks-data-parent-"));
    made.push(parent);
    tightenDataDir(path.join(parent, "a", "b"));
    expect(mode(path.join(parent, "a", "b"))).toBe(0o700);
  });
});
