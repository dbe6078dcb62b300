/** POST /api/unstake: the staker ends the stake of one item with a signed message naming it. */
import { unstakeItem } from "../../api/staking.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { singleStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/unstake";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(unstakeItem, ({ body, context }) => singleStakeAnswer(context, "unstake", body)),
});

export const loader = onlyMethods("POST");
