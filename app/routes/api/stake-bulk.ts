/** POST /api/stake/bulk: many items, one signed message listing them, one transaction. */
import { stakeItems } from "../../api/staking.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { bulkStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/stake-bulk";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(stakeItems, ({ body, context }) => bulkStakeAnswer(context, "stake", body)),
});

export const loader = onlyMethods("POST");
