/** GET /api/giveaways: every giveaway; POST (admin): create one (201). */
import { apiMethods, apiRoute, created, readJson } from "../../utils/api.server.ts";
import { objectBodySchema } from "../../utils/api-schemas.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { createGiveaway, listGiveaways, type CreateGiveawayInput } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaways";

export const loader = apiRoute<Route.LoaderArgs>(({ context }) => listGiveaways(context.sql));

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    const body = await readJson(request, objectBodySchema);
    return created(await createGiveaway(context.sql, body as CreateGiveawayInput, actor));
  },
});
