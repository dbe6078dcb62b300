/**
 * Express's own answers, made JSON with a `message` like every other: a file that is not there under
 * /uploads or /assets (404, instead of falling through to the pages), a method React Router cannot take
 * (TRACE, CONNECT, PROPFIND…: 405), a path with a malformed `%` (400), and whatever a middleware throws (its 4xx status kept, a URIError from
 * a malformed `%` is 400; anything else 500, logged) instead of finalhandler's HTML page.
 */
import { STATUS_CODES } from "node:http";
import type express from "express";
import type { Logger } from "../app/utils/logger.server.ts";
import { servedTarget } from "./served-path.ts";

/** The methods handed to React Router; the fetch API refuses TRACE, CONNECT and TRACK outright. */
export const ANSWERED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const noStore = (res: express.Response) => res.setHeader("Cache-Control", "no-store");

export const fileNotFound: express.RequestHandler = (req, res) => {
  noStore(res);
  res.status(404).json({ message: `No file at ${req.originalUrl.split("?", 1)[0]}` });
};

export const unansweredMethod: express.RequestHandler = (req, res, next) => {
  if (ANSWERED_METHODS.includes(req.method)) return next();
  noStore(res);
  res.setHeader("Allow", ANSWERED_METHODS.join(", "));
  res.status(405).json({ message: `Method ${req.method} not allowed` });
};

/** A path React Router could not decode (`%zz`, a cut-off `%E0%A4%A`): 400, before it warns and serves it undecoded. */
export const malformedPath: express.RequestHandler = (req, res, next) => {
  try {
    for (const segment of servedTarget(req.originalUrl).pathname.split("/")) decodeURIComponent(segment);
    return next();
  } catch {
    noStore(res);
    res.status(400).json({ message: "The path has a malformed %-encoding" });
  }
};

export const notFound: express.RequestHandler = (_req, res) => {
  noStore(res);
  res.status(404).json({ message: "Not found" });
};

function statusOf(error: unknown): number {
  if (error instanceof URIError) return 400;
  const { status, statusCode } = (error ?? {}) as { status?: unknown; statusCode?: unknown };
  const given = Number(status ?? statusCode);
  return Number.isInteger(given) && given >= 400 && given < 500 ? given : 500;
}

export function answerErrors(logger: Logger): express.ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    // Part of an answer has gone out: Express can only close the connection.
    if (res.headersSent) return next(error);
    const status = statusOf(error);
    if (status === 500) (req.log ?? logger).error({ msg: "unexpected server error", method: req.method, err: error });
    noStore(res);
    res.status(status).json({ message: status === 500 ? "Internal server error" : (STATUS_CODES[status] ?? "Bad request") });
  };
}
