import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Tests build into their own folder (tests/support/app-build.ts) so they never race `npm start`.
  buildDirectory: process.env.SPOOKS_BUILD_DIR ?? "build",
} satisfies Config;
