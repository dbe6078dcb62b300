/** GET /api/health: the database answers, and when the indexer last synced ownership and credited an hour. */
import { onlyMethods, json } from "../../utils/api.server.ts";
import { isDatabaseUnavailable } from "../../../db/availability.server.ts";
import { indexerHealth } from "../../../db/queries/health.server.ts";
import type { Route } from "./+types/health";

export async function loader({ context }: Route.LoaderArgs) {
  try {
    return json({ ok: true, database: "ok", indexer: await indexerHealth(context.sql) });
  } catch (error) {
    // 503 naming the failing part, so a load balancer or an operator sees which one it is.
    const database = isDatabaseUnavailable(error) ? "unreachable" : "failing";
    return json({ ok: false, database, indexer: null, message: `The database is ${database}` }, 503);
  }
}

export const action = onlyMethods("GET");
