/** GET /api/giveaways/{id}/entries: the giveaway's entries in entry order (the draw's order). */
import { apiRoute, idParam, onlyMethods } from "../../utils/api.server.ts";
import { listEntries } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-entries";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  listEntries(context.sql, idParam(params.id, "Giveaway")),
);

export const action = onlyMethods("GET");
