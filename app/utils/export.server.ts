/**
 * Downloads of any length (the points history's CSV and JSON, the vote receipts' CSV, any later export),
 * streamed so that a slow or silent client costs only its own connection (issue 23):
 * - The rows are read in keyset pages, each its own short statement (no cursor, no transaction, nothing held
 *   in the database between pages). The embedded database has one backend: a portal kept open while a
 *   client read would hold every query of the site, the indexer and the CLI.
 * - The next page is read only when the client has taken the last (a page is handed over in pieces of
 *   PIECE_BYTES, and the server waits for the socket to drain), so memory stays about a page per download.
 * - At most QUERIES_AT_ONCE page statements of all downloads run at once in this process (the others wait
 *   their turn, holding nothing): downloads never take more of the pool than that, and only while a page is
 *   read, so any other query waits for at most one page (on PGlite's single connection too).
 * - A client has at most DOWNLOADS_PER_CLIENT downloads open at once (429 with Retry-After beyond), and one
 *   that takes nothing for IDLE_MS is cut.
 * - HEAD answers the headers alone: nothing is read, nothing is counted.
 * docs/decisions.md "Downloads read in pages" says why.
 */
import { ipKeyGenerator } from "express-rate-limit";
import { json } from "./api.server.ts";

/** Rows a page statement reads: a few milliseconds of PostgreSQL, tens of PGlite, about 70-250 KB of text. */
export const EXPORT_PAGE_ROWS = 500;
const QUERIES_AT_ONCE = 1;
const DOWNLOADS_PER_CLIENT = 2;
const IDLE_MS = 30_000;
const PIECE_BYTES = 16 * 1024;
const RETRY_AFTER_S = 5;

export type ExportPage<Row, Cursor> = { rows: readonly Row[]; next: Cursor | null };

/** How rows are written: the file is `head`, each row, then `tail`. */
export type ExportFormat<Row> = {
  contentType: string;
  head: string;
  /** One row; `index` counts the rows written before it (a JSON array's commas). */
  row(row: Row, index: number): string;
  tail: string;
};

export type ExportOptions<Row, Cursor> = {
  request: Request;
  /** The client's address (`req.ip`), whose downloads are counted together. */
  clientIp: string | undefined;
  filename: string;
  format: ExportFormat<Row>;
  /** One page after `cursor` (null: the first), read by one short statement; `next` is null after the last. */
  readPage: (cursor: Cursor | null) => Promise<ExportPage<Row, Cursor>>;
};

/** At most `size` of the works run at once; the others wait in order. */
function createSlots(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function inSlot<T>(work: () => Promise<T>): Promise<T> {
    if (running < size) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

const inQuerySlot = createSlots(QUERIES_AT_ONCE);
const openDownloads = new Map<string, number>();

/** Counts a download of `client` in, or answers false when it already has as many open as it may. */
function admit(client: string): boolean {
  const open = openDownloads.get(client) ?? 0;
  if (open >= DOWNLOADS_PER_CLIENT) return false;
  openDownloads.set(client, open + 1);
  return true;
}

function release(client: string): void {
  const open = (openDownloads.get(client) ?? 1) - 1;
  if (open > 0) openDownloads.set(client, open);
  else openDownloads.delete(client);
}

const encoder = new TextEncoder();

function pieces(text: string): Uint8Array[] {
  const bytes = encoder.encode(text);
  const cut: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += PIECE_BYTES) cut.push(bytes.subarray(start, start + PIECE_BYTES));
  return cut;
}

/**
 * The export as a download: a 200 whose body is read page by page as the client takes it, 429 when the
 * client has too many open, the error of the first page (e.g. a 404) thrown before anything is answered.
 */
export async function exportDownload<Row, Cursor>(options: ExportOptions<Row, Cursor>): Promise<Response> {
  const { request, format } = options;
  const gzip = /\bgzip\b/i.test(request.headers.get("accept-encoding") ?? "");
  const headers = {
    "Content-Type": format.contentType,
    "Content-Disposition": `attachment; filename="${options.filename}"`,
    "Cache-Control": "no-store, no-transform",
    Vary: "Accept-Encoding",
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  };
  if (request.method === "HEAD") return new Response(null, { headers });

  const client = ipKeyGenerator(options.clientIp ?? "unknown", 56);
  if (!admit(client)) {
    return json(
      { message: `Too many downloads at once from your address (at most ${DOWNLOADS_PER_CLIENT}); try again in a few seconds` },
      429,
      { "Retry-After": String(RETRY_AFTER_S) },
    );
  }
  let first: ExportPage<Row, Cursor>;
  try {
    first = await inQuerySlot(() => options.readPage(null));
  } catch (error) {
    release(client);
    throw error;
  }
  const body = pagedBody(options, first, () => release(client));
  // Compressed here rather than by the compression middleware, whose `drain` listeners pile up on a long
  // stream (it forwards `on("drain")` to its gzip stream, never the removal): `no-transform` tells it to pass.
  return new Response(gzip ? body.pipeThrough(new CompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>) : body, {
    headers,
  });
}

/** The file's bytes, a piece per pull: a page is read when the last piece of the one before it was taken. */
function pagedBody<Row, Cursor>(
  { request, format, readPage }: ExportOptions<Row, Cursor>,
  first: ExportPage<Row, Cursor>,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  let written = 0;
  const text = (page: ExportPage<Row, Cursor>) => {
    const rows = page.rows.map((row) => format.row(row, written++)).join("");
    return page.next === null ? rows + format.tail : rows;
  };
  let waiting = pieces(format.head + text(first));
  let cursor = first.next;
  let ended = false;
  let idle: NodeJS.Timeout | undefined;
  const end = () => {
    clearTimeout(idle);
    if (ended) return;
    ended = true;
    request.signal.removeEventListener("abort", end);
    onEnd();
  };
  request.signal.addEventListener("abort", end);
  const awaitClient = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    idle = setTimeout(() => {
      end();
      controller.error(new Error("the client took nothing for too long"));
    }, IDLE_MS);
  };
  return new ReadableStream<Uint8Array>(
    {
      start: awaitClient,
      async pull(controller) {
        clearTimeout(idle);
        try {
          while (waiting.length === 0 && cursor !== null) {
            const page = await inQuerySlot(() => readPage(cursor));
            cursor = page.next;
            waiting = pieces(text(page));
          }
        } catch (error) {
          end();
          return controller.error(error);
        }
        if (ended) return;
        const piece = waiting.shift();
        if (!piece) {
          end();
          return controller.close();
        }
        controller.enqueue(piece);
        awaitClient(controller);
      },
      cancel: end,
    },
    { highWaterMark: 0 },
  );
}
