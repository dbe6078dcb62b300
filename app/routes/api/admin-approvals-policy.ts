/** GET /api/admin/approvals/policy (every member); PUT (owner): what needs a second signature (itself covered while in force). */
import { getApprovalPolicy, setApprovalPolicy } from "../../api/team.ts";
import { answerOrPending, SET_POLICY } from "../../utils/approvals.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import { getPolicy } from "../../../db/queries/approvals.server.ts";
import type { Route } from "./+types/admin-approvals-policy";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getApprovalPolicy, async ({ context }) => {
    const { pointsAbove, actions } = await getPolicy(context.sql);
    return { pointsAbove, actions };
  }),
);

export const action = apiMethods<Route.ActionArgs>({
  PUT: endpoint(setApprovalPolicy, ({ body, actor, context }) => answerOrPending(context, actor, SET_POLICY, body)),
});
