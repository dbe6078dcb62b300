/** POST /api/proposals/{id}/vote: one signed vote per wallet, weighted by its snapshot voting power. */
import { castVote } from "../../api/proposals.ts";
import { now } from "../../domain/clock.ts";
import { unauthorized } from "../../domain/errors.ts";
import { isVoteTimestampAhead } from "../../domain/governance.ts";
import { parseVoteMessage } from "../../domain/messages.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { consumeSignature, verifySignedAction } from "../../utils/auth.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import { withLogIndex } from "../../../db/queries/log.server.ts";
import type { Route } from "./+types/proposal-vote";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(castVote, async ({ params, body, context }) => {
    const proposalId = params.id;
    // Signature and message first: a forged or stale vote never reaches the database.
    const signed = verifySignedAction(body, parseVoteMessage, "vote");
    if (isVoteTimestampAhead(signed.timestamp, now())) {
      throw unauthorized("The signed vote's timestamp is more than a minute ahead of server time: check your device's clock");
    }
    const title = await proposals.proposalTitle(context.sql, proposalId);
    if (signed.proposalId !== proposalId || signed.title !== title || signed.optionId !== body.optionId) {
      throw unauthorized("The signed message does not name this proposal, its title and this option");
    }
    const { result: vote, logIndex } = await withLogIndex(context.sql, async (tx) => {
      await consumeSignature(tx, { ...body, action: "vote" });
      return proposals.castVote(tx, { proposalId, ...body, signedAt: signed.timestamp });
    });
    return { success: true, vote, logIndex };
  }),
});

export const loader = onlyMethods("POST");
