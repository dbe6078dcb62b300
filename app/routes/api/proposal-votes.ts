/** GET /api/proposals/{id}/votes[?format=csv]: every vote's public receipt (signed message, signature, items of its power). */
import { listVoteReceipts, VOTE_RECEIPTS_CSV_HEADER } from "../../api/proposals.ts";
import { csvRecord } from "../../domain/csv.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposal-votes";

function receiptsCsv(votes: proposals.VoteReceipt[]): string {
  const records = votes.map((vote) =>
    csvRecord([
      vote.address,
      vote.option,
      vote.optionText,
      vote.votingPower,
      vote.message,
      vote.signature,
      vote.votedAt.toISOString(),
      (vote.stakedAtStart ?? []).join(" "),
    ]),
  );
  return `${VOTE_RECEIPTS_CSV_HEADER}\r\n${records.join("")}`;
}

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listVoteReceipts, async ({ params, query, context }) => {
    const votes = await proposals.voteReceipts(context.sql, params.id);
    if (query.format === "json") return { proposalId: params.id, votes };
    return new Response(receiptsCsv(votes), {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="proposal-${params.id}-votes.csv"`,
        "Cache-Control": "no-store",
      },
    });
  }),
);

export const action = onlyMethods("GET");
