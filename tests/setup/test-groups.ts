/**
 * Sorts the test files into the suite's groups by what they reach, read from their imports (followed through
 * the repository's own modules, never into node_modules), so a new test lands in the right group by itself:
 * - `e2e`: the browser suites (tests/e2e/);
 * - `db`: the files that take their database from the suite's engine (tests/support/test-database.ts, or an
 *   older one beside it from db/testing/older-database.ts): PGlite, or the PostgreSQL server of TEST_DATABASE_URL.
 *   Only these run a second time on the other engine;
 * - `system`: databases, clusters and programs the file makes itself (an in-memory PGlite, a throwaway
 *   PostgreSQL cluster, the compiled programs, npm scripts): the suite's engine changes nothing for them;
 * - `unit`: everything else, which never touches a database or starts a process.
 */
import fs from "node:fs";
import path from "node:path";

export type TestGroup = "unit" | "db" | "system" | "e2e";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TEST_FILE = /\.test\.tsx?$/;
const SOURCE_DIRS = ["app", "db", "indexer", "cli", "server", "tests", "doubles"];
const ENGINE_HARNESSES = ["tests/support/test-database.ts", "db/testing/older-database.ts"];
/** A test file reading the suite's engine itself (vitest's `inject("testDatabase")`). */
const ENGINE_MARKER = /\binject\(\s*["']testDatabase["']/;
/** Modules that start whole programs or clusters of their own. */
const SYSTEM_HARNESSES = ["tests/support/pg-cluster.ts", "db/testing/fresh-pglite.ts"];
/** A test file making its own database or process. */
const SYSTEM_MARKER = /\bspawn(Sync)?\(|\bexecFile(Sync)?\(|\bfork\(|\bPGlite\b|\bcreateSql\(|\bopenDatabase\(|\brunCli\(/;
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

function listTestFiles(dir: string): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : listTestFiles(relative);
    return TEST_FILE.test(entry.name) ? [relative] : [];
  });
}

/** The repository modules `file` imports, directly or through others. */
function localImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = fs.readFileSync(path.join(ROOT, file), "utf8");
  for (const [, specifier] of source.matchAll(RELATIVE_IMPORT)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const resolved = [target, `${target}.ts`, `${target}.tsx`].find((candidate) =>
      fs.statSync(path.join(ROOT, candidate), { throwIfNoEntry: false })?.isFile(),
    );
    if (resolved && !resolved.startsWith("node_modules/")) localImports(resolved, seen);
  }
  return seen;
}

function groupOf(file: string): TestGroup {
  if (file.startsWith("tests/e2e/")) return "e2e";
  const reached = localImports(file);
  const own = fs.readFileSync(path.join(ROOT, file), "utf8");
  if (ENGINE_HARNESSES.some((harness) => reached.has(harness)) || ENGINE_MARKER.test(own)) return "db";
  if (SYSTEM_HARNESSES.some((harness) => reached.has(harness)) || SYSTEM_MARKER.test(own)) return "system";
  return "unit";
}

export function testGroups(): Record<TestGroup, string[]> {
  const groups: Record<TestGroup, string[]> = { unit: [], db: [], system: [], e2e: [] };
  for (const file of SOURCE_DIRS.flatMap(listTestFiles).sort()) groups[groupOf(file)].push(file);
  return groups;
}
