/** GET /api/proposals: every proposal with its status and options; POST (admin): create one (201). */
import { now } from "../../domain/clock.ts";
import { apiMethods, apiRoute, created, readJson } from "../../utils/api.server.ts";
import { objectBodySchema } from "../../utils/api-schemas.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { createProposal, listProposals, type CreateProposalInput } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals";

export const loader = apiRoute<Route.LoaderArgs>(({ context }) => listProposals(context.sql, now()));

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    const actor = await requireAdmin(request, context);
    const body = await readJson(request, objectBodySchema);
    // The creator is who the session proves, whatever `createdBy` the body names.
    const input = { ...body, createdBy: actor.address } as CreateProposalInput;
    return created(await createProposal(context.sql, input, actor));
  },
});
