// Runs before install and start with whatever `node` is on PATH, so it is plain CommonJS that any Node
// parses: one line saying what to install, instead of a syntax error or EBADENGINE from deep inside.
"use strict";
const wanted = require("../package.json").engines.node; // ">=24.12"
const [wantMajor, wantMinor] = wanted
  .replace(/^>=\s*/, "")
  .split(".")
  .map(Number);
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  console.error(
    `Spooks needs Node.js ${wanted.replace(/^>=\s*/, "")} or newer (Node 24 LTS; see .nvmrc); this is Node ${process.versions.node}. Install Node 24 (nvm install 24, or https://nodejs.org).`,
  );
  process.exit(1);
}
