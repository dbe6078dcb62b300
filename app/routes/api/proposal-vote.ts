/** POST /api/proposals/{id}/vote: one signed vote per wallet, weighted by its snapshot voting power. */
import { castVote } from "../../api/proposals.ts";
import { unauthorized } from "../../domain/errors.ts";
import { parseVoteMessage } from "../../domain/messages.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { consumeSignature, verifySignedAction } from "../../utils/auth.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import { inTransaction } from "../../../db/queries/transaction.server.ts";
import type { Route } from "./+types/proposal-vote";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(castVote, async ({ params, body, context }) => {
    const proposalId = params.id;
    // Signature and message first: a forged or stale vote never reaches the database.
    const signed = verifySignedAction(body, parseVoteMessage, "vote");
    const title = await proposals.proposalTitle(context.sql, proposalId);
    if (signed.proposalId !== proposalId || signed.title !== title || signed.optionId !== body.optionId) {
      throw unauthorized("The signed message does not name this proposal, its title and this option");
    }
    const vote = await inTransaction(context.sql, async (tx) => {
      await consumeSignature(tx, { ...body, action: "vote" });
      return proposals.castVote(tx, { proposalId, ...body, signedAt: signed.timestamp });
    });
    return { success: true, vote };
  }),
});

export const loader = onlyMethods("POST");
