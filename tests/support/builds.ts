/**
 * What tests run of the production build, made once per source state in .test-data/ (named by the inputs'
 * hash, under a lock so parallel files and runs never race): the app (`react-router build`) and the compiled
 * programs (build/node/: web, indexer, CLI, health check).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { compileEntryPoints, hashBuildInputs, isBuildFresh, ROOT, stampBuild } from "../../server/build.ts";
import { sleep } from "./net.ts";

/**
 * Makes `dir` once per source state: the first test file to get here runs `make` under a lock folder while the
 * others wait (a lock older than five minutes is a crashed run's and is taken over).
 */
async function buildOnce(dir: string, doneFile: string, make: (dir: string) => void | Promise<void>): Promise<void> {
  const done = path.join(dir, doneFile);
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  for (let waited = 0; !fs.existsSync(done); waited += 500) {
    try {
      fs.mkdirSync(lock);
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 5 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      if (!fs.existsSync(done)) await make(dir);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Builds the app once for the current sources; returns the build folder. */
export async function ensureAppBuild(): Promise<string> {
  const inputsHash = hashBuildInputs();
  const dir = path.join(ROOT, ".test-data", `build-${inputsHash}`);
  await buildOnce(dir, path.join("server", "index.js"), () => {
    execFileSync(path.join(ROOT, "node_modules/.bin/react-router"), ["build"], {
      cwd: ROOT,
      env: { ...process.env, SPOOKS_BUILD_DIR: dir, NODE_ENV: "production" },
      stdio: "pipe",
    });
  });
  // The folder's name is its inputs' hash; the stamp inside lets `npm start` reuse it (SPOOKS_BUILD_DIR).
  if (!isBuildFresh(dir, inputsHash)) stampBuild(dir, inputsHash);
  return dir;
}

/**
 * The compiled programs (build/node/ of `npm run build`: start.js, indexer.js, spooks-admin.js,
 * healthcheck.cjs) once for the current sources, inside the project so node_modules is found; returns
 * their folder.
 */
export async function ensureCompiledPrograms(): Promise<string> {
  const dir = path.join(ROOT, ".test-data", `node-${hashBuildInputs()}`);
  await buildOnce(dir, "healthcheck.cjs", (into) => compileEntryPoints(into));
  return dir;
}
