/** GET /api/proposals/user/{address}: the wallet's votes as `{ proposalId, optionId }`. */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { votesOfAddress } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals-user";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  votesOfAddress(context.sql, addressParam(params.address)),
);

export const action = onlyMethods("GET");
