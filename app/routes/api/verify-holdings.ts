/** POST /api/verify-holdings {address, inscriptionIds}: counts of the listed items the address really owns. */
import { apiRoute, onlyMethods, readJson } from "../../utils/api.server.ts";
import { verifyHoldingsBodySchema } from "../../utils/api-schemas.server.ts";
import { holdingCounts } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/verify-holdings";

export const action = apiRoute<Route.ActionArgs>(async ({ request, context }) => {
  const body = await readJson(request, verifyHoldingsBodySchema);
  return holdingCounts(context.sql, body.address, body.inscriptionIds);
});

export const loader = onlyMethods("POST");
