/** POST /api/admin/approvals/{id}/reject: ends a pending action unapplied (its proposer, or a member who could approve it). */
import { rejectAction } from "../../api/team.ts";
import { reject } from "../../utils/approvals.server.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import type { Route } from "./+types/admin-approval-reject";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(rejectAction, ({ params, actor, context }) => reject(context, actor, params.id)),
});

export const loader = onlyMethods("POST");
