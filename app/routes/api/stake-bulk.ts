/** POST /api/stake/bulk: many items, one signed message listing them, one transaction. */
import { apiRoute, onlyMethods, readJson } from "../../utils/api.server.ts";
import { bulkStakeBodySchema } from "../../utils/api-schemas.server.ts";
import { bulkStakeAnswer } from "../../utils/staking.server.ts";
import type { Route } from "./+types/stake-bulk";

export const action = apiRoute<Route.ActionArgs>(async ({ request, context }) =>
  bulkStakeAnswer(context, "stake", await readJson(request, bulkStakeBodySchema)),
);

export const loader = onlyMethods("POST");
