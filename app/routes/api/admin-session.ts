/** DELETE /api/admin/sessions/{id}: ends a session at once (the owner: anyone's; a member: their own). Audited. */
import { endSession } from "../../api/team.ts";
import { forbidden, notFound } from "../../domain/errors.ts";
import { roleRefusal } from "../../domain/team.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { recordAudit } from "../../../db/queries/audit.server.ts";
import { endSessionByReference, sessionOwner } from "../../../db/queries/team.server.ts";
import { inTransaction } from "../../../db/queries/transaction.server.ts";
import type { Route } from "./+types/admin-session";

export const action = apiMethods<Route.ActionArgs>({
  DELETE: endpoint(endSession, async ({ params, actor, context }) => {
    const holder = await sessionOwner(context.sql, params.id);
    if (!holder) throw notFound("Session not found");
    if (holder !== actor.address && actor.role !== "owner") throw forbidden(roleRefusal(actor.role, "end another member's session"));
    await inTransaction(context.sql, async (tx) => {
      const ended = await endSessionByReference(tx, params.id);
      if (!ended) throw notFound("Session not found");
      await recordAudit(tx, actor, "auth.session-end", ended.address, { session: params.id, ip: context.clientIp ?? null });
    });
    return { success: true };
  }),
});

export const loader = onlyMethods("DELETE");
