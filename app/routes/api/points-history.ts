/** GET /api/points/{address}/history[?limit=&cursor=&kind=&format=csv|json]: a wallet's points history. */
import { pointsHistory } from "../../api/points.ts";
import { CSV_HEADER, csvLine, type HistoryEntry } from "../../domain/points-history.ts";
import { answer, apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { historyBatches, pointsHistoryPage, type HistoryQuery } from "../../../db/queries/points-history.server.ts";
import type { Queryable } from "../../../db/client.server.ts";
import type { Route } from "./+types/points-history";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(pointsHistory, async ({ params, query, context, request }) => {
    const history: HistoryQuery = { address: params.address, before: query.cursor ?? null, kinds: query.kind ?? null };
    if (query.format) {
      if (downloadsRunning >= DOWNLOADS_AT_ONCE) {
        return answer(
          pointsHistory,
          429,
          { message: "Too many history downloads at once; try again in a few seconds" },
          { "Retry-After": "5" },
        );
      }
      const gzip = /\bgzip\b/i.test(request.headers.get("accept-encoding") ?? "");
      return download(context.sql, history, query.format, gzip);
    }
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
 * A download holds a database connection (its cursor) for as long as it lasts: at most this many run at
 * once per web process (429 beyond), and one whose client stops reading for IDLE_MS is ended, so slow or
 * stalled clients cannot take the pool (PGlite has one connection: a download holds it while it runs).
 */
const DOWNLOADS_AT_ONCE = 2;
const IDLE_MS = 30_000;
let downloadsRunning = 0;

/**
 * The whole history as a file, streamed: each chunk is read from the database only when the client has
 * taken the one before (the server waits for the socket to drain), so memory stays flat at any length. The
 * first chunk is read before answering, so a database that fails at once is still an error answer.
 */
async function download(sql: Queryable, history: HistoryQuery, format: keyof typeof FORMATS, gzip: boolean): Promise<Response> {
  const { type, chunks } = FORMATS[format];
  const source = chunks(historyBatches(sql, history));
  const encoder = new TextEncoder();
  downloadsRunning++;
  let running = true;
  let idle: NodeJS.Timeout | undefined;
  const finish = async () => {
    clearTimeout(idle);
    if (!running) return;
    running = false;
    downloadsRunning--;
    await source.return(undefined);
  };
  const armIdle = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    idle = setTimeout(() => {
      controller.error(new Error("the client stopped reading"));
      void finish();
    }, IDLE_MS);
  };
  let first: IteratorResult<string> | null;
  try {
    first = await source.next();
  } catch (error) {
    await finish();
    throw error;
  }
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        clearTimeout(idle);
        try {
          const next = first ?? (await source.next());
          first = null;
          if (next.done) {
            await finish();
            return controller.close();
          }
          controller.enqueue(encoder.encode(next.value));
          armIdle(controller);
        } catch (error) {
          await finish();
          controller.error(error);
        }
      },
      start: armIdle,
      cancel: finish,
    },
    { highWaterMark: 0 },
  );
  // Compressed here rather than by the compression middleware, whose `drain` listeners pile up on a long
  // stream (it forwards `on("drain")` to its gzip stream, never the removal): `no-transform` tells it to pass.
  return new Response(gzip ? body.pipeThrough(new CompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>) : body, {
    headers: {
      "Content-Type": type,
      "Content-Disposition": `attachment; filename="spooks-points-${history.address}.${format}"`,
      "Cache-Control": "no-store, no-transform",
      Vary: "Accept-Encoding",
      ...(gzip ? { "Content-Encoding": "gzip" } : {}),
    },
  });
}
