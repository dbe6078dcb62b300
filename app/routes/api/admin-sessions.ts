/** GET /api/admin/sessions: every member's live sessions for the owner, one's own for the others. */
import { listSessions } from "../../api/team.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { sessionReference, sessionTokenHash } from "../../utils/auth.server.ts";
import { listSessions as readSessions } from "../../../db/queries/team.server.ts";
import type { Route } from "./+types/admin-sessions";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listSessions, async ({ request, actor, context }) => {
    const owner = context.config.adminAddress;
    const sessions = await readSessions(context.sql, owner, actor.role === "owner" ? undefined : actor.address);
    const mine = sessionTokenHash(request, context);
    const current = mine ? sessionReference(mine) : null;
    return sessions.map((session) => ({ ...session, current: session.id === current }));
  }),
);

export const action = onlyMethods("GET");
