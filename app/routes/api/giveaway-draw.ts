/** GET /api/giveaways/{id}/draw: everything needed to recompute the draw (docs/fairness.md). */
import { getGiveawayDraw } from "../../api/giveaways.ts";
import { apiRoute, endpoint } from "../../utils/api.server.ts";
import * as draws from "../../../db/queries/draws.server.ts";
import { logIndexOf } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/giveaway-draw";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getGiveawayDraw, async ({ params, context }) => ({
    ...(await draws.getGiveawayDraw(context.sql, params.id)),
    // Demo mode's draw block comes from the simulated chain: the page says so (issue 33, item 8).
    simulatedChain: context.config.demo,
    logIndex: await logIndexOf(context.sql, "giveaways.draw", params.id),
  })),
);
