/** GET /api/health: the database answers, and when the indexer last synced ownership and credited an hour. */
import { health } from "../../api/system.ts";
import { answer, apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { isDatabaseUnavailable } from "../../../db/availability.server.ts";
import { indexerHealth } from "../../../db/queries/health.server.ts";
import type { Route } from "./+types/health";

/** 503 naming the failing part, so a load balancer or an operator sees which one it is. */
function databaseDown(error: unknown): Response {
  const database = isDatabaseUnavailable(error) ? "unreachable" : "failing";
  return answer(health, 503, { ok: false, database, indexer: null, message: `The database is ${database}` });
}

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(health, async ({ context }) => {
    try {
      return { ok: true, database: "ok" as const, indexer: await indexerHealth(context.sql) };
    } catch (error) {
      return databaseDown(error);
    }
  }),
);

export const action = onlyMethods("GET");
