/** POST /api/admin/approvals/{id}/approve `{ message, signature }`: a second member's signature applies the pending action. */
import { approveAction } from "../../api/team.ts";
import { approve } from "../../utils/approvals.server.ts";
import { apiMethods, endpoint, json, onlyMethods } from "../../utils/api.server.ts";
import { OrdError } from "../../../indexer/ord-client.server.ts";
import type { Route } from "./+types/admin-approval-approve";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(approveAction, async ({ params, body, actor, context }) => {
    try {
      return await approve(context, actor, params.id, body);
    } catch (error) {
      // An approved draw that could not reach the ord server: nothing changed, the approval stays pending.
      if (error instanceof OrdError) return json({ message: "The ord server did not answer: entries stay open, try again" }, 503);
      throw error;
    }
  }),
});

export const loader = onlyMethods("POST");
