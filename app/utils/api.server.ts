/**
 * One wrapper for every /api resource route: JSON in (1 MB limit, zod-checked), JSON out, and errors as
 * `{ message }` with an honest status. Refusals and bad input are 4xx; only the unexpected is a 500.
 */
import type { z } from "zod";
import { AddressError, isDogecoinAddress } from "../domain/address.ts";
import { badRequest, Refusal } from "../domain/errors.ts";
import { SignatureError } from "../domain/signature.ts";
import { MESSAGES } from "../domain/validation.ts";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "../../db/availability.server.ts";
import { parseOrRefuse, requireRowId } from "../../db/queries/input.server.ts";

export const JSON_BODY_LIMIT = 1024 * 1024;

type RequestArgs = { request: Request; context?: { config: { nodeEnv: string } } };
type Handler<A> = (args: A) => unknown;

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(data, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

export const created = (data: unknown) => json(data, 201);

const tooLarge = (limit: number) => new Refusal(413, `Request body is larger than ${Math.round(limit / 1024)} KB`);

/**
 * Past the limit the rest of a body is still read (and dropped) up to this much, so the connection stays
 * usable and the client reads the 413 instead of a reset; beyond it the stream is cut.
 */
const DRAIN_LIMIT = 16 * 1024 * 1024;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  let size = alreadyRead;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
    if (size > DRAIN_LIMIT) return void (await reader.cancel().catch(() => {}));
  }
}

/** The raw body, refusing (413) more than `limit` bytes whether or not Content-Length tells the truth. */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await (declared <= DRAIN_LIMIT ? drain(reader, 0) : reader.cancel().catch(() => {}));
    throw tooLarge(limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await drain(reader, size);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return parseOrRefuse(schema, value);
}

/** The JSON body checked by `schema`: 413 beyond 1 MB, 400 when malformed or invalid. */
export async function readJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const bytes = await readBodyBytes(request, JSON_BODY_LIMIT);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw badRequest(bytes.length === 0 ? "A JSON body is required" : "Malformed JSON body");
  }
  return parseWith(schema, body);
}

/** A positive integer id from the path, else 404 (no such id can exist). */
export function idParam(value: string | undefined, what: string): number {
  const id = /^[1-9]\d{0,9}$/.test(value ?? "") ? Number(value) : NaN;
  requireRowId(id, what);
  return id;
}

export function addressParam(value: string | undefined): string {
  const address = (value ?? "").trim();
  if (!isDogecoinAddress(address)) throw badRequest(MESSAGES.invalidAddress);
  return address;
}

type PgError = { code?: string; message?: string; severity?: string };

function isPgError(error: unknown): error is PgError {
  return typeof error === "object" && error !== null && "severity" in error && "code" in error;
}

/** The response for a failure: 4xx with the reason when it is the caller's, 500 (logged) otherwise. */
export function errorResponse(error: unknown, request: Request): Response {
  if (error instanceof Refusal) return json({ message: error.message }, error.status);
  if (error instanceof SignatureError) return json({ message: error.message }, 401);
  if (error instanceof AddressError) return json({ message: error.message }, 400);
  if (isDatabaseUnavailable(error)) return json({ message: DATABASE_UNAVAILABLE_MESSAGE }, 503, { "Retry-After": "5" });
  if (isPgError(error)) {
    // Safety nets: the database refusing what the checks above it should already have refused.
    if (error.code === "23514" && error.message === "insufficient points") return json({ message: "Not enough points" }, 409);
    if (error.code === "22003") return json({ message: "A number is out of range" }, 400);
    // Postgres text cannot hold U+0000; whatever text carried it (a body, a query, a signed message) is refused.
    if (error.code === "22021") return json({ message: "Text must not contain NUL characters" }, 400);
  }
  console.error(
    JSON.stringify({
      time: new Date().toISOString(),
      level: "error",
      service: "web",
      msg: "unexpected API error",
      method: request.method,
      path: new URL(request.url).pathname,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    }),
  );
  return json({ message: "Internal server error" }, 500);
}

/** Wraps a loader or action: a returned value is answered as JSON 200, a returned Response as is. */
export function apiRoute<A extends RequestArgs>(work: Handler<A>): (args: A) => Promise<Response> {
  return async (args) => {
    const started = performance.now();
    let response: Response;
    try {
      const result = await work(args);
      response = result instanceof Response ? result : json(result);
    } catch (error) {
      response = errorResponse(error, args.request);
    }
    // Time spent in the handler (body read, checks, database), for operators and the benchmark; not in
    // production, where it would tell anyone how long the database took (a timing side channel).
    if (args.context?.config.nodeEnv !== "production") {
      response.headers.set("Server-Timing", `app;dur=${(performance.now() - started).toFixed(1)}`);
    }
    return response;
  };
}

type Method = "POST" | "PUT" | "PATCH" | "DELETE";

/** An action answering several methods; any other is 405. */
export function apiMethods<A extends RequestArgs>(handlers: Partial<Record<Method, Handler<A>>>): (args: A) => Promise<Response> {
  const allow = ["GET", ...Object.keys(handlers)].join(", ");
  return apiRoute<A>((args) => {
    const handler = handlers[args.request.method.toUpperCase() as Method];
    if (!handler) return json({ message: `Method ${args.request.method} not allowed` }, 405, { Allow: allow });
    return handler(args);
  });
}

/** For the methods a route does not answer (a GET-only route's action, a POST-only route's loader). */
export function onlyMethods(...allowed: string[]) {
  return ({ request }: RequestArgs): Response =>
    json({ message: `Method ${request.method} not allowed` }, 405, { Allow: allowed.join(", ") });
}
