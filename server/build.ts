/**
 * The production build: the app (`react-router build`: build/client and build/server) and the compiled
 * entry points (build/node/: web, indexer, health check and CLI as plain JavaScript, so production runs
 * no TypeScript compiler). `npm start` builds only when stale: a build folder is fresh when its stamp file
 * holds the hash of everything the app is made from. `npm run build` always builds. Tests share the hash
 * (tests/support/app-server.ts).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../app/utils/project-root.server.ts";

export const ROOT = projectRoot(import.meta.dirname);
/** The app's sources and the code it bundles from db/, indexer/ and server/, the CLI (build/node/), the configuration. */
const BUILD_INPUTS = ["app", "db", "indexer", "server", "cli", "public", "react-router.config.ts", "vite.config.ts", "package-lock.json"];
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
  await compileEntryPoints(path.join(buildDir, "node"));
  stampBuild(buildDir, inputsHash);
}

/** The long-running programs, by the name of their file in build/node/: packages stay in node_modules. */
export const SERVER_ENTRY_POINTS = {
  start: "server/start.ts",
  indexer: "indexer/main.ts",
  // The compose profile "simulated" (trials, `npm run test:deploy`): the simulated ord server as a service.
  "simulated-ord": "indexer/simulated-ord-main.ts",
} as const;

/**
 * The CLI, short-lived: its packages are bundled in too, so node reads a few files instead of hundreds; except
 * those that find files next to themselves (PGlite's WebAssembly, pino-pretty), and Ink's developer tools, which
 * Ink imports only when DEV=true and which are not installed. React and Ink are bundled together, so there is
 * one copy of React, and as its production build (reactProductionBuild).
 */
export const CLI_ENTRY_POINTS = { "spooks-admin": "cli/compiled-entry.ts" } as const;
const CLI_EXTERNALS = ["@electric-sql/pglite", "pino-pretty", "react-devtools-core"];

/**
 * React's packages choose their development or production build by `process.env.NODE_ENV` when they are loaded.
 * NODE_ENV means more to Spooks than that (production refuses demo mode), so the CLI's bundle does not define it
 * for everyone: only React's own entry files read it as "production" (the development build costs a command
 * about a tenth of a second to load and run, for warnings an operator never reads).
 */
const reactProductionBuild = {
  name: "react-production-build",
  setup(build: import("esbuild").PluginBuild) {
    build.onLoad({ filter: /[\\/]node_modules[\\/](react|react-reconciler|scheduler)[\\/][\w-]+\.js$/ }, async (args) => ({
      contents: (await fs.promises.readFile(args.path, "utf8")).replaceAll("process.env.NODE_ENV", '"production"'),
      loader: "js",
    }));
  },
};

/**
 * zod's namespace re-exports its 60-odd translations of its error messages (`z.locales`), about half of the
 * bundle's zod; Spooks speaks English only (zod loads `en` itself), so the CLI's bundle carries that one alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build: import("esbuild").PluginBuild) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * Ink's layout engine (yoga-layout) carries its WebAssembly inline and decodes it at once, but asks first whether
 * `fetch` is a function; in Node that question alone loads Node's fetch (undici, with http2 and zlib), tens of
 * milliseconds a command pays for nothing. The CLI's copy of yoga does not ask.
 */
const yogaWithoutFetch = {
  name: "yoga-without-fetch",
  setup(build: import("esbuild").PluginBuild) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/][\w-]+\.js$/ }, async (args) => ({
      contents: (await fs.promises.readFile(args.path, "utf8")).replaceAll("typeof fetch", '"undefined"'),
      loader: "js",
    }));
  },
};

/**
 * The health check, run every few seconds: one CommonJS file of node's own modules only (node starts a
 * CommonJS program for about half the CPU time an ES module costs it).
 */
export const HEALTHCHECK_ENTRY_POINT = "server/healthcheck.ts";

/**
 * Compiles the entry points into `outDir` with esbuild: one ES module per program plus the chunks they share
 * (code split, so a command loads only what it runs), JSX compiled, types stripped. esbuild is a build tool,
 * imported here only when building.
 */
export async function compileEntryPoints(outDir: string): Promise<void> {
  const esbuild = await import("esbuild");
  fs.rmSync(outDir, { recursive: true, force: true });
  const common = {
    absWorkingDir: ROOT,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    jsx: "automatic",
    legalComments: "none",
    logLevel: "warning",
  } as const;
  await esbuild.build({ ...common, entryPoints: SERVER_ENTRY_POINTS, chunkNames: "server-[hash]", packages: "external" });
  await esbuild.build({
    ...common,
    entryPoints: CLI_ENTRY_POINTS,
    chunkNames: "cli-[hash]",
    external: CLI_EXTERNALS,
    plugins: [reactProductionBuild, zodEnglishOnly, yogaWithoutFetch],
    // Bundled CommonJS packages may require() node's modules, which an ES module has no `require` for.
    banner: { js: 'import { createRequire as __spooksRequire } from "node:module"; const require = __spooksRequire(import.meta.url);' },
  });
  const { splitting: _, ...single } = common;
  await esbuild.build({ ...single, entryPoints: { healthcheck: HEALTHCHECK_ENTRY_POINT }, format: "cjs", outExtension: { ".js": ".cjs" } });
}
