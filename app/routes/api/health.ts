/** GET /api/health: the database answers, and when the indexer last synced ownership and credited an hour. */
import { onlyMethods, json } from "../../utils/api.server.ts";
import { indexerHealth } from "../../../db/queries/health.server.ts";
import type { Route } from "./+types/health";

export async function loader({ context }: Route.LoaderArgs) {
  try {
    return json({ ok: true, database: "ok", indexer: await indexerHealth(context.sql) });
  } catch {
    return json({ ok: false, database: "unreachable", indexer: null }, 503);
  }
}

export const action = onlyMethods("GET");
