/** GET /api/proposals: every proposal with its status and options; POST (admin): create one (201). */
import { createProposal, listProposals } from "../../api/proposals.ts";
import { now } from "../../domain/clock.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(listProposals, ({ context }) => proposals.listProposals(context.sql, now())));

export const action = apiMethods<Route.ActionArgs>({
  // The creator is who the session proves, whatever `createdBy` the body names.
  POST: endpoint(createProposal, ({ body, actor, context }) =>
    proposals.createProposal(context.sql, { ...body, createdBy: actor.address }, actor),
  ),
});
