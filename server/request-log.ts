/**
 * One log line per request (pino-http), written when its answer ends:
 * `{"level":"info",…,"service":"web","reqId":"…","method":"GET","path":"/api/health","status":200,"durationMs":3,"ip":"…","msg":"request completed"}`.
 * - The request id is the caller's X-Request-Id when it sent a sane one (a proxy's, to follow a request
 *   across both logs), else a new UUID; it is answered in X-Request-Id and carried by every line logged
 *   through `req.log` / `context.logger` while the request is answered.
 * - The path without its query string: queries carry addresses and the client's `_t` cache-busters. No
 *   headers, cookies or bodies (signatures, signed messages) ever reach the line. A path whose segment is a secret
 *   (an email link's token, a Discord link token) is logged as its route pattern with a short hash of the
 *   segment in its place (`/api/notifications/email/confirm/{token:3f9a1c2b5d6e}`), however it was spelled:
 *   enough to follow one link's requests, nothing to use it with (issue 32, item 6).
 * - Level by outcome: a 500 (our own failure) is an error; 502-504 (a dependency down: the ord server
 *   behind /content, the database's 503) are warnings, one per request, whose cause is logged once by the
 *   part that met it; everything else, 4xx included (the caller's mistake), is info, so LOG_LEVEL=warn
 *   keeps only the failures.
 * server/app.ts mounts it after the static files, which are not logged (docs/decisions.md, "Logs").
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type express from "express";
import { pinoHttp } from "pino-http";
import { redactSecretPath } from "../app/domain/redact.ts";
import type { Logger } from "../app/utils/logger.server.ts";
import { decodeServedPath, servedTarget } from "./served-path.ts";

/** What an X-Request-Id we take from a caller may look like: a UUID or another short token, nothing else. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers["x-request-id"];
  const id = typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", id);
  return id;
}

/** The path as logged: without its query; a secret segment as its route pattern and a short hash, however spelled. */
export function loggedPath(originalUrl: string): string {
  const served = decodeServedPath(servedTarget(originalUrl).pathname);
  const redacted = redactSecretPath(served);
  return redacted === served ? originalUrl.split("?", 1)[0] : redacted;
}

function requestFields(req: IncomingMessage, res: ServerResponse, durationMs: number) {
  const { method, originalUrl, ip } = req as express.Request;
  return { method, path: loggedPath(originalUrl), status: res.statusCode, durationMs, ip };
}

function levelOf(status: number, error: Error | undefined): "error" | "warn" | "info" {
  if (error || status === 500 || status > 504) return "error";
  return status >= 500 ? "warn" : "info";
}

export function requestLog(logger: Logger): express.RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestId,
    // req.log carries the request id only; the request line is built below, from nothing else.
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: (_req, res, error) => levelOf(res.statusCode, error),
    customSuccessMessage: (req, res) => (res.writableEnded && !req.readableAborted ? "request completed" : "request aborted"),
    customErrorMessage: () => "request failed",
    customSuccessObject: (req, res, line: { responseTime: number }) => requestFields(req, res, line.responseTime),
    customErrorObject: (req, res, _error, line: { responseTime: number }) => requestFields(req, res, line.responseTime),
  });
}
