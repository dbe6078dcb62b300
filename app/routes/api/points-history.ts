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
import { logIndexesOf } from "../../../db/queries/log.server.ts";
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
    if (!query.format) {
      const page = await pointsHistoryPage(context.sql, history, query.limit);
      const indexes = await logIndexesOf(
        context.sql,
        "points_ledger",
        page.entries.map((entry) => entry.id),
      );
      return { ...page, entries: page.entries.map((entry) => ({ ...entry, logIndex: indexes.get(entry.id) ?? null })) };
    }
    return exportDownload({
      request,
      clientIp: context.clientIp,
      filename: `spooks-points-${history.address}.${query.format}`,
      format: query.format === "csv" ? csv : json,
      readPage: async (cursor: HistoryExportCursor | null) => {
        const page = await historyExportPage(context.sql, history, cursor, EXPORT_PAGE_ROWS);
        const indexes = await logIndexesOf(
          context.sql,
          "points_ledger",
          page.rows.map((row) => row.id),
        );
        return { ...page, rows: page.rows.map((row) => ({ ...row, logIndex: indexes.get(row.id) ?? null })) };
      },
    });
  }),
);

export const action = onlyMethods("GET");
