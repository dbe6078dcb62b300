/** GET /api/proposals/{id}/votes[?format=csv]: every vote's public receipt (signed message, signature, items of its power). */
import { listVoteReceipts, VOTE_RECEIPTS_CSV_HEADER } from "../../api/proposals.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposal-votes";

/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function receiptsCsv(votes: proposals.VoteReceipt[]): string {
  const lines = votes.map((vote) =>
    [
      vote.address,
      vote.option,
      vote.optionText,
      vote.votingPower,
      vote.message,
      vote.signature,
      vote.votedAt.toISOString(),
      (vote.stakedAtStart ?? []).join(" "),
    ]
      .map(csvField)
      .join(","),
  );
  return [VOTE_RECEIPTS_CSV_HEADER, ...lines].map((line) => `${line}\r\n`).join("");
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
