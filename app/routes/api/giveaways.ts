/** GET /api/giveaways: every giveaway; POST (admin): create one (201). */
import { createGiveaway, listGiveaways } from "../../api/giveaways.ts";
import { blockIntervalMs } from "../../domain/giveaways.ts";
import { refusePictureHost } from "../../utils/picture-hosts.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaways";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listGiveaways, ({ context }) => giveaways.listGiveaways(context.sql, blockIntervalMs(context.config))),
);

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(createGiveaway, ({ body, actor, context }) => {
    refusePictureHost(body.imageUrl, context.config);
    return giveaways.createGiveaway(context.sql, body, actor);
  }),
});
