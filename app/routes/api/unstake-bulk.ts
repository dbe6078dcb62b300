/** POST /api/unstake/bulk: many items, one signed message listing them, one transaction. */
import { unstakeItems } from "../../api/staking.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { bulkStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/unstake-bulk";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(unstakeItems, ({ body, context }) => bulkStakeAnswer(context, "unstake", body)),
});

export const loader = onlyMethods("POST");
