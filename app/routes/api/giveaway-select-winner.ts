/**
 * POST /api/giveaways/{id}/select-winner (admin). Version 2: closes entries at the ord server's next block
 * (the indexer draws once 6 blocks sit on top); version 1: the commit-reveal draw, now.
 */
import { drawGiveawayWinner } from "../../api/giveaways.ts";
import { apiMethods, endpoint, json, onlyMethods } from "../../utils/api.server.ts";
import { OrdError } from "../../../indexer/ord-client.server.ts";
import { answerOrPending, SELECT_WINNER } from "../../utils/approvals.server.ts";
import type { Route } from "./+types/giveaway-select-winner";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(drawGiveawayWinner, async ({ params, actor, context }) => {
    try {
      return await answerOrPending(context, actor, SELECT_WINNER, params);
    } catch (error) {
      if (error instanceof OrdError) return json({ message: "The ord server did not answer: entries stay open, try again" }, 503);
      throw error;
    }
  }),
});

export const loader = onlyMethods("POST");
