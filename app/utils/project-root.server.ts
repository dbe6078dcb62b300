/**
 * The project's root folder (the one holding package.json), found from a module's own folder. The same
 * answer whether the module runs from its source (db/, cli/, server/), from the React Router build
 * (build/server/) or from the compiled entry points (build/node/), which a fixed `..` could not give.
 */
import fs from "node:fs";
import path from "node:path";

export function projectRoot(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The app's version (package.json's), read at run time so no build step has to carry it. */
export function appVersion(): string {
  const file = path.join(projectRoot(import.meta.dirname), "package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}
