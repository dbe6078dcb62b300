/** GET /api/giveaways/{id}; PATCH (admin) `{ active }` ends or reactivates it; DELETE (admin) removes it, refunding undrawn entries. */
import { apiMethods, apiRoute, idParam, readJson } from "../../utils/api.server.ts";
import { setActiveBodySchema } from "../../utils/api-schemas.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { deleteGiveaway, getGiveaway, setGiveawayActive } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  getGiveaway(context.sql, idParam(params.id, "Giveaway")),
);

export const action = apiMethods<Route.ActionArgs>({
  PATCH: async ({ request, params, context }) => {
    const actor = await requireAdmin(request, context);
    const id = idParam(params.id, "Giveaway");
    const { active } = await readJson(request, setActiveBodySchema);
    return setGiveawayActive(context.sql, id, active, actor);
  },
  DELETE: async ({ request, params, context }) => {
    const actor = await requireAdmin(request, context);
    const { refunded } = await deleteGiveaway(context.sql, idParam(params.id, "Giveaway"), actor);
    return { success: true, refunded };
  },
});
