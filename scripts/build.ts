/** `npm run build`: the whole production build into build/ (or SPOOKS_BUILD_DIR), whether or not it is stale. */
import path from "node:path";
import { build } from "../server/build.ts";

build(path.resolve(process.env.SPOOKS_BUILD_DIR ?? "build")).catch((error: Error) => {
  console.error(`spooks: ${error.message}`);
  process.exit(1);
});
