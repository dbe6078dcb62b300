/**
 * The files of node_modules production reads, for the image (Dockerfile, stage production-deps): traced with
 * @vercel/nft from the compiled programs (build/node/), the React Router server build and the CLI's launcher,
 * plus the files read by a path nft cannot follow (swagger-ui-dist's assets, named in a template). Prints one
 * path per line, relative to the project root; the image deletes every other file of node_modules.
 *   node --import tsx scripts/runtime-files.ts > runtime-files.txt      (after `npm run build`)
 */
import { nodeFileTrace } from "@vercel/nft";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
/** Read at run time through require.resolve(`swagger-ui-dist/${file}`) (app/routes/api/docs.server.ts). */
const UNTRACEABLE = ["node_modules/swagger-ui-dist/swagger-ui-bundle.js", "node_modules/swagger-ui-dist/swagger-ui.css"];

function entryPoints(): string[] {
  const inBuild = (folder: string) =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.(c|m)?js$/.test(file))
      .map((file) => path.join(folder, file));
  return [...inBuild("build/node"), ...inBuild("build/server"), "cli/bin/spooks-admin.js"];
}

async function main() {
  const entries = entryPoints();
  if (!entries.some((file) => file.endsWith("start.js"))) throw new Error("no build: run `npm run build` first");
  const { fileList, warnings } = await nodeFileTrace(entries, { base: ROOT, processCwd: ROOT });
  const missing = UNTRACEABLE.filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`);
  // nft follows every import it sees, also into the dev tools and TypeScript sources the programs load only in
  // development (a checkout): it cannot parse some of those, and none of them is installed in production.
  const notes = [...warnings].filter((warning) => !/Cannot find module|Failed to parse/.test(warning.message));
  for (const warning of notes) console.error(`runtime-files: ${warning.message}`);
  const files = [...fileList, ...UNTRACEABLE].filter((file) => file.startsWith("node_modules/"));
  process.stdout.write(`${[...new Set(files)].sort().join("\n")}\n`);
}

await main();
