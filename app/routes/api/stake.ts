/** POST /api/stake: the owner stakes one item with a signed message naming it. */
import { stakeItem } from "../../api/staking.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { singleStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/stake";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(stakeItem, ({ body, context }) => singleStakeAnswer(context, "stake", body)),
});

export const loader = onlyMethods("POST");
