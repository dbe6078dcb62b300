/** POST /api/unstake: the staker ends the stake of one item with a signed message naming it. */
import { apiRoute, onlyMethods, readJson } from "../../utils/api.server.ts";
import { stakeBodySchema } from "../../utils/api-schemas.server.ts";
import { singleStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/unstake";

export const action = apiRoute<Route.ActionArgs>(async ({ request, context }) =>
  singleStakeAnswer(context, "unstake", await readJson(request, stakeBodySchema)),
);

export const loader = onlyMethods("POST");
