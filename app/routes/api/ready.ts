/** GET /api/ready: the database answers and every migration this code knows is applied (the proxy's probe). */
import { ready } from "../../api/system.ts";
import { answer, apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { countDatabaseError } from "../../utils/metrics.server.ts";
import { isDatabaseUnavailable } from "../../../db/availability.server.ts";
import { pendingMigrations } from "../../../db/migrate.server.ts";
import type { Route } from "./+types/ready";

const notReady = (message: string) => answer(ready, 503, { ok: false, message }, { "Retry-After": "5" });

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(ready, async ({ context }) => {
    let pending: string[];
    try {
      pending = await pendingMigrations(context.sql);
    } catch (error) {
      const kind = isDatabaseUnavailable(error) ? "unavailable" : "failing";
      countDatabaseError(kind);
      return notReady(kind === "unavailable" ? "The database is unreachable" : "The database is failing");
    }
    if (pending.length > 0) return notReady(`Migrations not applied yet: ${pending.join(", ")}`);
    return { ok: true as const };
  }),
);

export const action = onlyMethods("GET");
