/** GET /api/admin/approvals?status= (every member): covered requests, newest first, with the policy. */
import { listApprovals } from "../../api/team.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { getPolicy, listApprovals as readApprovals } from "../../../db/queries/approvals.server.ts";
import type { Route } from "./+types/admin-approvals";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listApprovals, async ({ query, context }) => {
    const [entries, { pointsAbove, actions }] = await Promise.all([
      readApprovals(context.sql, { status: query.status }),
      getPolicy(context.sql),
    ]);
    return { entries, policy: { pointsAbove, actions } };
  }),
);

export const action = onlyMethods("GET");
