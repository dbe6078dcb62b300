/** GET /api/giveaways/{id}/entries: the giveaway's entries in entry order (the draw's order). */
import { listEntries } from "../../api/giveaways.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-entries";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listEntries, ({ params, context }) => giveaways.listEntries(context.sql, params.id)),
);

export const action = onlyMethods("GET");
