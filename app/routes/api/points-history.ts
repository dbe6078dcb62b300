/** GET /api/points/{address}/history[?limit=&cursor=&kind=&format=csv|json]: a wallet's points history. */
import { pointsHistory } from "../../api/points.ts";
import { CSV_HEADER, csvLine, type HistoryEntry } from "../../domain/points-history.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { EXPORT_PAGE_ROWS, exportDownload, type ExportFormat } from "../../utils/export.server.ts";
import {
  historyExportPage,
  pointsHistoryPage,
  type HistoryExportCursor,
  type HistoryQuery,
} from "../../../db/queries/points-history.server.ts";
import type { Route } from "./+types/points-history";

/** The CSV file: the header, then a line per entry. */
const csv: ExportFormat<HistoryEntry> = {
  contentType: "text/csv; charset=utf-8",
  head: `${CSV_HEADER}\r\n`,
  row: csvLine,
  tail: "",
};

/** The page's own answer with every entry; JSON.stringify writes Dates as the contract's ISO strings. */
const json: ExportFormat<HistoryEntry> = {
  contentType: "application/json; charset=utf-8",
  head: '{"entries":[',
  row: (entry, index) => (index === 0 ? "" : ",") + JSON.stringify(entry),
  tail: '],"nextCursor":null}\n',
};

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(pointsHistory, async ({ params, query, context, request }) => {
    const history: HistoryQuery = { address: params.address, before: query.cursor ?? null, kinds: query.kind ?? null };
    if (!query.format) return pointsHistoryPage(context.sql, history, query.limit);
    return exportDownload({
      request,
      clientIp: context.clientIp,
      filename: `spooks-points-${history.address}.${query.format}`,
      format: query.format === "csv" ? csv : json,
      readPage: (cursor: HistoryExportCursor | null) => historyExportPage(context.sql, history, cursor, EXPORT_PAGE_ROWS),
    });
  }),
);

export const action = onlyMethods("GET");
