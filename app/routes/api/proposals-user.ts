/** GET /api/proposals/user/{address}: the wallet's votes as `{ proposalId, optionId }`. */
import { listVotesOfAddress } from "../../api/proposals.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { votesOfAddress } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals-user";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listVotesOfAddress, ({ params, context }) => votesOfAddress(context.sql, params.address)),
);

export const action = onlyMethods("GET");
