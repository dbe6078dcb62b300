/** PATCH /api/giveaways/{id}/image (admin) `{ imageUrl }`. */
import { apiMethods, idParam, onlyMethods, readJson } from "../../utils/api.server.ts";
import { imageBodySchema } from "../../utils/api-schemas.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { setGiveawayImage } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-image";

export const action = apiMethods<Route.ActionArgs>({
  PATCH: async ({ request, params, context }) => {
    const actor = await requireAdmin(request, context);
    const id = idParam(params.id, "Giveaway");
    const { imageUrl } = await readJson(request, imageBodySchema);
    return setGiveawayImage(context.sql, id, imageUrl, actor);
  },
});

export const loader = onlyMethods("PATCH");
