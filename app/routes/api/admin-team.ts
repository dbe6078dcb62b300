/** GET /api/admin/team (every member): the owner, then the members; POST (owner) `{ address, role }`: add one or change a role. */
import { addTeamMember, listTeam } from "../../api/team.ts";
import { ADD_MEMBER, answerOrPending } from "../../utils/approvals.server.ts";
import { apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import { listTeam as readTeam } from "../../../db/queries/team.server.ts";
import type { Route } from "./+types/admin-team";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(listTeam, ({ context }) => readTeam(context.sql, context.config.adminAddress)));

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(addTeamMember, ({ body, actor, context }) => answerOrPending(context, actor, ADD_MEMBER, body)),
});
