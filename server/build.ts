/**
 * The production build (`react-router build`), made only when stale. A build folder is fresh when its stamp
 * file holds the hash of everything the build is made from; `npm start` reuses it then and builds otherwise.
 * `npm run build` always builds. Tests share the hash (tests/support/app-server.ts).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "..");
const BUILD_INPUTS = ["app", "public", "react-router.config.ts", "vite.config.ts", "package-lock.json"];
const STAMP = ".inputs-hash";

/** A short hash of the build's inputs (sources without tests, configuration, locked dependencies). */
export function hashBuildInputs(root = ROOT): string {
  const hash = createHash("sha256");
  const visit = (entry: string) => {
    const full = path.join(root, entry);
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const child of fs.readdirSync(full).sort()) {
        if (!/\.test\.tsx?$/.test(child)) visit(path.join(entry, child));
      }
    } else {
      hash.update(entry).update(fs.readFileSync(full));
    }
  };
  BUILD_INPUTS.forEach(visit);
  return hash.digest("hex").slice(0, 12);
}

function readStamp(buildDir: string): string | null {
  try {
    return fs.readFileSync(path.join(buildDir, STAMP), "utf8").trim();
  } catch {
    return null;
  }
}

/** True when `buildDir` holds a finished build of exactly these inputs. */
export function isBuildFresh(buildDir: string, inputsHash = hashBuildInputs()): boolean {
  return readStamp(buildDir) === inputsHash && fs.existsSync(path.join(buildDir, "server", "index.js"));
}

/** Marks a finished build as made from `inputsHash`. */
export function stampBuild(buildDir: string, inputsHash: string): void {
  fs.writeFileSync(path.join(buildDir, STAMP), `${inputsHash}\n`);
}

/**
 * Runs `react-router build` into `buildDir` in a child process and stamps it. SIGTERM or SIGINT while
 * building stops the build and this process (so a stop during the first start is never ignored).
 */
export async function build(buildDir: string, inputsHash = hashBuildInputs()): Promise<void> {
  fs.rmSync(path.join(buildDir, STAMP), { force: true });
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules/@react-router/dev/bin.js"), "build"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", SPOOKS_BUILD_DIR: buildDir },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const stop = (signal: NodeJS.Signals) => {
    child.kill(signal);
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGTERM", stop).once("SIGINT", stop);
  try {
    const code = await new Promise<number | null>((resolve, reject) => child.on("error", reject).on("exit", resolve));
    if (code !== 0) throw new Error(`the build failed (react-router build exited with ${code})`);
  } finally {
    process.off("SIGTERM", stop).off("SIGINT", stop);
  }
  stampBuild(buildDir, inputsHash);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  build(path.resolve(process.env.SPOOKS_BUILD_DIR ?? "build")).catch((error: Error) => {
    console.error(`spooks: ${error.message}`);
    process.exit(1);
  });
}
