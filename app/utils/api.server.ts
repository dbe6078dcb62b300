/**
 * One wrapper for every /api resource route: JSON in (1 MB limit, zod-checked), JSON out, and errors as
 * `{ message }` with an honest status. Refusals and bad input are 4xx; only the unexpected is a 500.
 */
import type { z } from "zod";
import { API_ROUTES } from "../api/index.ts";
import { type AnswerSchema, type RouteContract, type ServerAnswer, type SuccessStatus } from "../api/kit.ts";
import { AddressError } from "../domain/address.ts";
import { decodedPath, redactSecretPath } from "../domain/redact.ts";
import { badRequest, Refusal } from "../domain/errors.ts";
import { SignatureError } from "../domain/signature.ts";
import type { AppLoadContext } from "react-router";
import { requireAdmin, type AdminActor } from "./auth.server.ts";
import { requestLogger } from "./logger.server.ts";
import { countDatabaseError } from "./metrics.server.ts";
import { readCapped } from "./read-capped.server.ts";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "../../db/availability.server.ts";
import { parseOrRefuse } from "../../db/queries/input.server.ts";

export const JSON_BODY_LIMIT = 1024 * 1024;

type RequestArgs = { request: Request; context?: { config: { nodeEnv: string } } };
type Handler<A> = (args: A) => unknown;

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(JSON.stringify(data), status, headers);
}

/** A JSON answer whose text is built already (`answer`'s for frozen data), never to be cached. */
function jsonText(body: string, status: number, headers: Record<string, string>): Response {
  return new Response(body, { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers } });
}

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
  const read = await readCapped(reader, limit);
  if ("bytes" in read) return read.bytes;
  await drain(reader, read.bytesRead);
  throw tooLarge(limit);
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
  return parseOrRefuse(schema, body);
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
  if (isDatabaseUnavailable(error)) {
    countDatabaseError("unavailable");
    return json({ message: DATABASE_UNAVAILABLE_MESSAGE }, 503, { "Retry-After": "5" });
  }
  if (isPgError(error)) {
    // Safety nets: the database refusing what the checks above it should already have refused.
    if (error.code === "23514" && error.message === "insufficient points") return json({ message: "Not enough points" }, 409);
    if (error.code === "22003") return json({ message: "A number is out of range" }, 400);
    // Postgres text cannot hold U+0000; whatever text carried it (a body, a query, a signed message) is refused.
    if (error.code === "22021") return json({ message: "Text must not contain NUL characters" }, 400);
  }
  if (isPgError(error)) countDatabaseError("failing");
  requestLogger().error({
    msg: "unexpected API error",
    method: request.method,
    path: redactSecretPath(decodedPath(request.url)),
    err: error,
  });
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
  const contracted = Object.values(handlers).find((handler) => handler && "route" in handler) as ContractHandler<A> | undefined;
  const allow = contracted ? allowOf(contracted.route.path) : ["GET", ...Object.keys(handlers)].join(", ");
  return apiRoute<A>((args) => {
    const handler = handlers[args.request.method.toUpperCase() as Method];
    if (!handler) return methodNotAllowed(args.request.method, allow);
    return handler(args);
  });
}

/** For the methods a route does not answer (a GET-only route's action, a POST-only route's loader). */
export function onlyMethods(...allowed: string[]) {
  return ({ request }: RequestArgs): Response => methodNotAllowed(request.method, allowed.join(", "));
}

const methodNotAllowed = (method: string, allow: string) => json({ message: `Method ${method} not allowed` }, 405, { Allow: allow });

/** The methods the contract documents for `path` (the Allow header of its 405s). */
function allowOf(path: string): string {
  return [...new Set(API_ROUTES.filter((route) => route.path === path).map((route) => route.method))].join(", ");
}

type ContractHandler<A> = Handler<A> & { route: RouteContract };

// Contract-driven handlers (app/api/) ------------------------------------------------------------------

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export type EndpointInput<R extends RouteContract, A> = Omit<A, "params"> & {
  /** The signed-in member and their role, for `auth: "admin-session"` routes (checked, with the route's permission, before any input is read). */
  actor: R["auth"] extends "admin-session" ? AdminActor : undefined;
  params: Parsed<R["params"]>;
  query: Parsed<R["query"]>;
  body: R["body"] extends { kind: "json"; schema: infer B } ? Parsed<B> : undefined;
};

/** The JSON of frozen answers (kept for many requests: db/queries/hot-reads.server.ts), by the schema that built it. */
const frozenAnswers = new WeakMap<object, { schema: z.ZodType; body: string }>();

/**
 * The answer `status` of `route`, built by its schema: what the schema does not name is dropped, Dates
 * become ISO strings, and an answer that breaks the contract is a server error (500), never sent. Data that
 * is frozen cannot change, so its JSON is built once and sent again as it is.
 */
export function answer<R extends RouteContract, S extends keyof R["responses"] & number>(
  route: R,
  status: S,
  data: z.input<AnswerSchema<R, S>>,
  headers: Record<string, string> = {},
): Response {
  const spec = route.responses[status];
  if (!spec) throw new Error(`${route.operationId} documents no ${status} answer`);
  if (typeof data !== "object" || data === null || !Object.isFrozen(data)) return json(spec.schema.parse(data), status, headers);
  let built = frozenAnswers.get(data);
  if (built?.schema !== spec.schema)
    frozenAnswers.set(data, (built = { schema: spec.schema, body: JSON.stringify(spec.schema.parse(data)) }));
  return jsonText(built.body, status, headers);
}

/**
 * A handler bound to its contract: path params, query and JSON body parsed by the route's schemas before
 * `work` runs; `work` returns the success answer's data (or a Response built with `answer`).
 */
export function endpoint<
  R extends RouteContract,
  A extends { request: Request; context: AppLoadContext; params?: Record<string, string | undefined> },
>(
  route: R,
  // NoInfer: R comes from `route` alone; inferred from the work's answer, `success: true` would widen to boolean.
  work: NoInfer<(input: EndpointInput<R, A>) => ServerAnswer<R> | Response | Promise<ServerAnswer<R> | Response>>,
): ContractHandler<A> {
  const success = (route.responses[201] ? 201 : 200) as SuccessStatus<R> & keyof R["responses"] & number;
  const handler = async (args: A) => {
    // A method the contract does not give this route (PUT on a POST route) never reaches its work.
    const method = args.request.method.toUpperCase();
    if (method !== route.method && !(method === "HEAD" && route.method === "GET")) return methodNotAllowed(method, allowOf(route.path));
    // Who may call comes first (the session, then the role's permission): an outsider learns nothing from how the
    // input would have been judged.
    const actor =
      route.auth === "admin-session"
        ? await requireAdmin(args.request, args.context, route.body?.kind ?? "json", route.requires)
        : undefined;
    const params = route.params ? parseOrRefuse(route.params, args.params ?? {}) : undefined;
    const query = route.query ? parseOrRefuse(route.query, Object.fromEntries(new URL(args.request.url).searchParams)) : undefined;
    const body = route.body?.kind === "json" ? await readJson(args.request, route.body.schema) : undefined;
    const result = await work({ ...args, actor, params, query, body } as unknown as EndpointInput<R, A>);
    return result instanceof Response ? result : answer(route, success, result as z.input<AnswerSchema<R, typeof success>>);
  };
  return Object.assign(handler, { route });
}
