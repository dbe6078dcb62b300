/** GET /api/proposals/{id}: the proposal with vote counts; DELETE (admin) removes it and its votes. */
import { now } from "../../domain/clock.ts";
import { apiMethods, apiRoute, idParam } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { deleteProposal, getProposalDetail } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposal";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  getProposalDetail(context.sql, idParam(params.id, "Proposal"), now()),
);

export const action = apiMethods<Route.ActionArgs>({
  DELETE: async ({ request, params, context }) => {
    const actor = await requireAdmin(request, context);
    await deleteProposal(context.sql, idParam(params.id, "Proposal"), actor);
    return { success: true };
  },
});
