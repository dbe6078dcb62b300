/** POST /api/giveaways/enter: a holder spends points on tickets, with a signed entry message. */
import { enterGiveaway } from "../../api/giveaways.ts";
import { unauthorized } from "../../domain/errors.ts";
import { parseEntryMessage } from "../../domain/messages.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { consumeSignature, verifySignedAction } from "../../utils/auth.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import { rewardsOf } from "../../../db/queries/holdings.server.ts";
import { withLogIndex } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/giveaways-enter";

export const action = apiRoute<Route.ActionArgs>(
  endpoint(enterGiveaway, async ({ body, context }) => {
    const signed = verifySignedAction(body, parseEntryMessage, "giveaway entry");
    if (signed.giveawayId !== body.giveawayId || signed.tickets !== body.tickets) {
      throw unauthorized("The signed message does not name this giveaway and ticket count");
    }
    const { result: entry, logIndex } = await withLogIndex(context.sql, async (tx) => {
      await consumeSignature(tx, { ...body, action: "giveaway-entry" });
      return giveaways.enterGiveaway(tx, body);
    });
    return { success: true, entry, rewards: await rewardsOf(context.sql, body.address, { afterOwnWrite: true }), logIndex };
  }),
);

export const loader = onlyMethods("POST");
