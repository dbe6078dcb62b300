/** DELETE /api/admin/team/{address} (owner): removes a member and ends their sessions at once. */
import { removeTeamMember } from "../../api/team.ts";
import { answerOrPending, REMOVE_MEMBER } from "../../utils/approvals.server.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import type { Route } from "./+types/admin-team-member";

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(removeTeamMember, ({ params, actor, context }) => answerOrPending(context, actor, REMOVE_MEMBER, params)),
});

export const loader = onlyMethods("DELETE");
