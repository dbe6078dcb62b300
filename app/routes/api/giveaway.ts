/**
 * GET /api/giveaways/{id}; PUT (admin) edits every field while nobody has entered; PATCH (admin) `{ active }` ends or
 * reactivates it; DELETE (admin) removes it, refunding undrawn entries.
 */
import { deleteGiveaway, getGiveaway, setGiveawayActive, updateGiveaway } from "../../api/giveaways.ts";
import { refusePictureHost } from "../../utils/picture-hosts.server.ts";
import { blockIntervalMs } from "../../domain/giveaways.ts";
import { answerOrPending, DELETE_GIVEAWAY } from "../../utils/approvals.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaway";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getGiveaway, ({ params, context }) => giveaways.getGiveaway(context.sql, params.id, blockIntervalMs(context.config))),
);

export const action = apiMethods<Route.ActionArgs>({
  PUT: endpoint(updateGiveaway, ({ params, body, actor, context }) => {
    refusePictureHost(body.imageUrl, context.config);
    return giveaways.updateGiveaway(context.sql, params.id, body, actor);
  }),
  PATCH: endpoint(setGiveawayActive, ({ params, body, actor, context }) =>
    giveaways.setGiveawayActive(context.sql, params.id, body.active, actor),
  ),
  DELETE: endpoint(deleteGiveaway, ({ params, actor, context }) => answerOrPending(context, actor, DELETE_GIVEAWAY, params)),
});
