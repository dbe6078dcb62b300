/** GET /api/proposals/{id}/votes[?format=csv]: every vote's public receipt (signed message, signature, items of its power). */
import { listVoteReceipts, VOTE_RECEIPTS_CSV_HEADER } from "../../api/proposals.ts";
import { csvRecord, verbatim } from "../../domain/csv.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { EXPORT_PAGE_ROWS, exportDownload, type ExportFormat } from "../../utils/export.server.ts";
import * as proposals from "../../../db/queries/proposals.server.ts";
import type { Route } from "./+types/proposal-votes";

/** The CSV file: the header, then a line per vote; the signed message and signature exactly as signed. */
const csv: ExportFormat<proposals.VoteReceipt> = {
  contentType: "text/csv; charset=utf-8",
  head: `${VOTE_RECEIPTS_CSV_HEADER}\r\n`,
  row: (vote) =>
    csvRecord([
      vote.address,
      vote.option,
      vote.optionText,
      vote.votingPower,
      verbatim(vote.message),
      verbatim(vote.signature),
      vote.votedAt.toISOString(),
      (vote.stakedAtStart ?? []).join(" "),
      vote.id,
      vote.supersededBy ?? "",
    ]),
  tail: "",
};

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listVoteReceipts, async ({ params, query, context, request }) => {
    if (query.format === "json") return { proposalId: params.id, votes: await proposals.voteReceipts(context.sql, params.id) };
    await proposals.proposalTitle(context.sql, params.id); // 404 before any header, HEAD included
    return exportDownload({
      request,
      clientIp: context.clientIp,
      filename: `proposal-${params.id}-votes.csv`,
      format: csv,
      readPage: (cursor: proposals.VoteReceiptsCursor | null) =>
        proposals.voteReceiptsExportPage(context.sql, params.id, cursor, EXPORT_PAGE_ROWS),
    });
  }),
);

export const action = onlyMethods("GET");
