/** PATCH /api/giveaways/{id}/image (admin) `{ imageUrl }`. */
import { setGiveawayImage } from "../../api/giveaways.ts";
import { refusePictureHost } from "../../utils/picture-hosts.server.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway-image";

export const action = apiMethods<Route.ActionArgs>({
  PATCH: endpoint(setGiveawayImage, ({ params, body, actor, context }) => {
    refusePictureHost(body.imageUrl, context.config);
    return giveaways.setGiveawayImage(context.sql, params.id, body.imageUrl, actor);
  }),
});

export const loader = onlyMethods("PATCH");
