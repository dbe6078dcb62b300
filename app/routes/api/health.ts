/** GET /api/health: the database answers, and when the indexer last synced ownership and credited an hour. */
import { health } from "../../api/system.ts";
import { judgeIndexer } from "../../domain/indexer-health.ts";
import { now } from "../../domain/clock.ts";
import { answer, apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { countDatabaseError } from "../../utils/metrics.server.ts";
import { isDatabaseUnavailable } from "../../../db/availability.server.ts";
import { indexerHealth } from "../../../db/queries/health.server.ts";
import type { Route } from "./+types/health";

/** 503 naming the failing part, so a load balancer or an operator sees which one it is. */
function databaseDown(error: unknown): Response {
  const database = isDatabaseUnavailable(error) ? "unreachable" : "failing";
  countDatabaseError(database === "unreachable" ? "unavailable" : "failing");
  return answer(health, 503, { ok: false, database, indexer: null, message: `The database is ${database}` });
}

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(health, async ({ context }) => {
    try {
      const indexer = await indexerHealth(context.sql);
      const { healthy, problem } = judgeIndexer(indexer, context.config.ops.indexerStaleAfterSeconds, now());
      return { ok: true, database: "ok" as const, indexer: { ...indexer, healthy, problem } };
    } catch (error) {
      return databaseDown(error);
    }
  }),
);

export const action = onlyMethods("GET");
