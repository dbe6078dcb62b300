/**
 * GET /api/proposals/voting-power/{address}[?proposalId=]: the current staked count, or with a proposal
 * the wallet's snapshot power at its start.
 */
import { getVotingPower } from "../../api/proposals.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { votingPowerSnapshot } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals-voting-power";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getVotingPower, ({ params, query, context }) => votingPowerSnapshot(context.sql, params.address, query.proposalId)),
);

export const action = onlyMethods("GET");
