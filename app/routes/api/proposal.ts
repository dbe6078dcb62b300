/** GET /api/proposals/{id}: the proposal with vote counts; DELETE (admin) removes it and its votes. */
import { deleteProposal, getProposal } from "../../api/proposals.ts";
import { now } from "../../domain/clock.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposal";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getProposal, ({ params, context }) => proposals.getProposalDetail(context.sql, params.id, now())),
);

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(deleteProposal, async ({ params, actor, context }) => {
    await proposals.deleteProposal(context.sql, params.id, actor);
    return { success: true };
  }),
});
