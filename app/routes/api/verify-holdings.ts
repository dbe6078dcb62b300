/** POST /api/verify-holdings {address, inscriptionIds}: counts of the listed items the address really owns. */
import { verifyHoldings } from "../../api/holdings.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { holdingCounts } from "../../../db/queries/holdings.server.ts";
import type { Route } from "./+types/verify-holdings";

export const action = apiMethods<Route.ActionArgs>({
  POST: endpoint(verifyHoldings, ({ body, context }) => holdingCounts(context.sql, body.address, body.inscriptionIds)),
});

export const loader = onlyMethods("POST");
