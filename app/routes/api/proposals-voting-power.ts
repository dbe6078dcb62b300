/**
 * GET /api/proposals/voting-power/{address}[?proposalId=]: the current staked count, or with a proposal
 * the wallet's snapshot power at its start.
 */
import { getVotingPower } from "../../api/proposals.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { votingPower } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals-voting-power";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getVotingPower, async ({ params, query, context }) => ({
    votingPower: await votingPower(context.sql, params.address, query.proposalId),
  })),
);

export const action = onlyMethods("GET");
