/**
 * `npm run bench`: every benchmark in turn, each printing its own figures beside its baseline.
 * Needs a real PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 * `npm run bench -- api` runs one.
 */
export {};

const SUITES = {
  api: () => import("./api.ts"),
  history: () => import("./history.ts"),
  indexer: () => import("./indexer.ts"),
  log: () => import("./log.ts"),
  "block-walk": () => import("./block-walk.ts"),
  render: () => import("./render.ts"),
  "validate-batches": () => import("./validate-batches.ts"),
  "pglite-memory": () => import("./pglite-memory.ts"),
  "draw-verify": () => import("./draw-verify.ts"),
  "vote-verify": () => import("./vote-verify.ts"),
  notifications: () => import("./notifications.ts"),
  "email-deliver": () => import("./email-deliver.ts"),
  discord: () => import("./discord.ts"),
  "discord-interactions": () => import("./discord.ts").then((suite) => ({ run: suite.runInteractions })),
  cli: () => import("./cli.ts"),
} as const;

type Suite = keyof typeof SUITES;
const wanted = process.argv.slice(2).filter((name): name is Suite => name in SUITES);

for (const name of wanted.length ? wanted : (Object.keys(SUITES) as Suite[])) {
  console.log(`\n=== bench: ${name} ===`);
  const suite = await SUITES[name]();
  await suite.run();
}
