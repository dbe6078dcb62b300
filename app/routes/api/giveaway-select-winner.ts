/** POST /api/giveaways/{id}/select-winner (admin): the commit-reveal draw, weighted by tickets. */
import { apiMethods, idParam, onlyMethods } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { drawGiveawayWinner } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-select-winner";

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, params, context }) => {
    const actor = await requireAdmin(request, context);
    return drawGiveawayWinner(context.sql, idParam(params.id, "Giveaway"), actor);
  },
});

export const loader = onlyMethods("POST");
