/**
 * GET /api/proposals/voting-power/{address}[?proposalId=]: the current staked count, or with a proposal
 * the wallet's snapshot power at its start.
 */
import { addressParam, apiRoute, idParam, onlyMethods } from "../../utils/api.server.ts";
import { votingPower } from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposals-voting-power";

export const loader = apiRoute<Route.LoaderArgs>(async ({ request, params, context }) => {
  const address = addressParam(params.address);
  const raw = new URL(request.url).searchParams.get("proposalId");
  const proposalId = raw === null || raw === "" ? undefined : idParam(raw, "Proposal");
  return { votingPower: await votingPower(context.sql, address, proposalId) };
});

export const action = onlyMethods("GET");
