/**
 * Container health checks (the image's HEALTHCHECK and docker-compose.yml): exit 0 when healthy, else exit 1
 * with one line on stderr saying why. Each answers within 5 s.
 * - `healthcheck.ts` (web): this container's GET /api/health (PORT) answers 200.
 * - `healthcheck.ts indexer [SECONDS]`: the indexer recorded an ownership pass in the database (DATABASE_URL)
 *   within the last SECONDS (default 600), so a hung or crashed indexer shows as unhealthy.
 */
import { createSql } from "../db/client.server.ts";

const TIMEOUT_MS = 5_000;

async function web(): Promise<string | null> {
  const port = process.env.PORT || "3000";
  const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (response.status === 200) return null;
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  return `/api/health answered ${response.status}${body.message ? `: ${body.message}` : ""}`;
}

async function indexer(withinSeconds: number): Promise<string | null> {
  if (!process.env.DATABASE_URL) return "DATABASE_URL is not set";
  const sql = createSql(process.env.DATABASE_URL, { max: 1 });
  try {
    const [row] = await sql<{ age: number | null }[]>`
      select extract(epoch from now() - max(finished_at))::float8 as age from sync_runs`;
    if (row.age === null) return "no ownership pass recorded yet";
    if (row.age > withinSeconds) return `the last ownership pass finished ${Math.round(row.age)} s ago (limit ${withinSeconds} s)`;
    return null;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const [mode = "web", within = "600"] = process.argv.slice(2);
if ((mode !== "web" && mode !== "indexer") || !/^\d+$/.test(within)) {
  console.error("usage: healthcheck.ts [web | indexer [SECONDS]]");
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error(`unhealthy: no answer within ${TIMEOUT_MS / 1000} s`);
  process.exit(1);
}, TIMEOUT_MS);
(mode === "web" ? web() : indexer(Number(within)))
  .then((problem) => {
    clearTimeout(timer);
    if (problem) console.error(`unhealthy: ${problem}`);
    process.exit(problem ? 1 : 0);
  })
  .catch((error: Error & { code?: string; cause?: { code?: string } }) => {
    console.error(`unhealthy: ${error.cause?.code ?? error.code ?? error.message}`);
    process.exit(1);
  });
