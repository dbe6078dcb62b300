/** POST /api/giveaways/{id}/claim: a winner claims the prize with a signed contact (issue 27, item 9). */
import { claimPrize } from "../../api/giveaways.ts";
import { unauthorized } from "../../domain/errors.ts";
import { claimMessage, parseClaimMessage } from "../../domain/messages.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { verifySignedAction } from "../../utils/auth.server.ts";
import * as claims from "../../../db/queries/claims.server.ts";
import { getGiveaway } from "../../../db/queries/giveaways.server.ts";
import { withLogIndex } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/giveaway-claim";

export const action = apiRoute<Route.ActionArgs>(
  endpoint(claimPrize, async ({ params, body, context }) => {
    const signed = verifySignedAction(body, parseClaimMessage, "prize claim");
    const giveaway = await getGiveaway(context.sql, params.id);
    // Title and contact are free text: the message must be exactly the one these fields make, at its own time.
    if (body.message !== claimMessage(giveaway.title, giveaway.id, body.address, body.contact, signed.timestamp)) {
      throw unauthorized("The signed message does not name this giveaway's title and id, this address and this contact");
    }
    const { result: claim, logIndex } = await withLogIndex(context.sql, (tx) =>
      claims.claimPrize(tx, { ...body, giveawayId: giveaway.id }),
    );
    return { success: true, claim, logIndex };
  }),
);

export const loader = onlyMethods("POST");
