/**
 * `npm ci` on any platform: the lock file lists every optional (platform) package its packages name, so
 * npm never finds it "out of sync" on a machine whose platform build the lock left out.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
type Locked = { version?: string; optionalDependencies?: Record<string, string> };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, Locked> };
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  packageManager?: string;
  engines?: Record<string, string>;
};

/** Where npm would look for `name` from the package at `at` (its node_modules, then each parent's). */
function resolve(at: string, name: string): Locked | undefined {
  for (let dir = at; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const found = lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`];
    if (found || !dir) return found;
  }
}

describe("package-lock.json", () => {
  it("lists every platform package that a locked package names, at the version it names", () => {
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(lock.packages)) {
      for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
        const found = resolve(at, name);
        if (!found || (/^\d/.test(version) && found.version !== version)) missing.push(`${at || "."} → ${name}@${version}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("is meant for the npm that package.json names", () => {
    expect(pkg.packageManager).toMatch(/^npm@\d+\.\d+\.\d+$/);
    expect(pkg.engines?.npm).toBeDefined();
  });
});
