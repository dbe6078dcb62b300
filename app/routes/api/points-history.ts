/** GET /api/points/{address}/history[?limit=&cursor=&kind=&format=csv|json]: a wallet's points history. */
import { pointsHistory } from "../../api/points.ts";
import { CSV_HEADER, csvLine, type HistoryEntry } from "../../domain/points-history.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { historyBatches, pointsHistoryPage, type HistoryQuery } from "../../../db/queries/points-history.server.ts";
import type { Queryable } from "../../../db/client.server.ts";
import type { Route } from "./+types/points-history";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(pointsHistory, async ({ params, query, context }) => {
    const history: HistoryQuery = { address: params.address, before: query.cursor ?? null, kinds: query.kind ?? null };
    if (query.format) return download(context.sql, history, query.format);
    return pointsHistoryPage(context.sql, history, query.limit);
  }),
);

export const action = onlyMethods("GET");

async function* csvChunks(batches: AsyncIterable<HistoryEntry[]>): AsyncGenerator<string> {
  let head = `${CSV_HEADER}\r\n`;
  for await (const batch of batches) {
    yield head + batch.map(csvLine).join("");
    head = "";
  }
  if (head) yield head;
}

/** The page's own answer with every entry; JSON.stringify writes Dates as the contract's ISO strings. */
async function* jsonChunks(batches: AsyncIterable<HistoryEntry[]>): AsyncGenerator<string> {
  let head = '{"entries":[';
  for await (const batch of batches) {
    yield head + batch.map((entry) => JSON.stringify(entry)).join(",");
    head = ",";
  }
  yield `${head === "," ? "" : head}],"nextCursor":null}\n`;
}

const FORMATS = {
  csv: { type: "text/csv; charset=utf-8", chunks: csvChunks },
  json: { type: "application/json; charset=utf-8", chunks: jsonChunks },
} as const;

/**
 * The whole history as a file, streamed: each chunk is read from the database only when the client has
 * taken the one before (the server waits for the socket to drain), so memory stays flat at any length. The
 * first chunk is read before answering, so a database that fails at once is still an error answer.
 */
async function download(sql: Queryable, history: HistoryQuery, format: keyof typeof FORMATS): Promise<Response> {
  const { type, chunks } = FORMATS[format];
  const source = chunks(historyBatches(sql, history));
  const encoder = new TextEncoder();
  let first: IteratorResult<string> | null = await source.next();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = first ?? (await source.next());
        first = null;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await source.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    headers: {
      "Content-Type": type,
      "Content-Disposition": `attachment; filename="spooks-points-${history.address}.${format}"`,
      "Cache-Control": "no-store",
    },
  });
}
