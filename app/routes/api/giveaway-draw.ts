/** GET /api/giveaways/{id}/draw: everything needed to recompute the draw (docs/fairness.md). */
import { getGiveawayDraw } from "../../api/giveaways.ts";
import { apiRoute, endpoint } from "../../utils/api.server.ts";
import * as draws from "../../../db/queries/draws.server.ts";
import type { Route } from "./+types/giveaway-draw";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getGiveawayDraw, ({ params, context }) => draws.getGiveawayDraw(context.sql, params.id)),
);
