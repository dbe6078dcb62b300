/** POST /api/giveaways/{id}/select-winner (admin): the commit-reveal draw, weighted by tickets. */
import { drawGiveawayWinner } from "../../api/giveaways.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-select-winner";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(drawGiveawayWinner, ({ params, actor, context }) => giveaways.drawGiveawayWinner(context.sql, params.id, actor)),
});

export const loader = onlyMethods("POST");
