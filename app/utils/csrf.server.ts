/**
 * The cross-site check for every change a cookie authorizes (admin API calls, the /admin form actions,
 * sign-in and sign-out). The session cookie is SameSite=Strict already; this is the second wall:
 * - the request must name this site as its `Origin` (or, when a browser sends none, its `Referer`):
 *   anything else, or neither, is 403;
 * - the body must be of the kind the route reads (`application/json`, `multipart/form-data` for the
 *   image upload, a form encoding for the /admin page's own form actions): anything else is 415; a request
 *   with no body at all (no Content-Type, no Content-Length or 0) passes, there being nothing to read. A
 *   cross-site page can send only form encodings and text/plain without a CORS preflight, which this
 *   server never grants, so JSON routes cannot be reached from another site at all.
 * Both run before the body is read or anything is changed.
 */
import type { AppLoadContext } from "react-router";
import { forbidden, Refusal } from "../domain/errors.ts";

/** The site's public origin: PUBLIC_URL, else the origin the request was addressed to (which
 * server/request-handler.ts builds from the Host, or from trusted X-Forwarded-* headers). */
export function siteOf(request: Request, context: AppLoadContext): URL {
  return new URL(context.config.publicUrl ?? new URL(request.url).origin);
}

export type BodyKind = "json" | "multipart" | "form";

const ACCEPTED: Record<BodyKind, string[]> = {
  json: ["application/json"],
  multipart: ["multipart/form-data"],
  form: ["application/x-www-form-urlencoded", "multipart/form-data"],
};

const DESCRIBED: Record<BodyKind, string> = {
  json: "application/json",
  multipart: "multipart/form-data",
  form: "a form (application/x-www-form-urlencoded or multipart/form-data)",
};

function originOf(value: string): string | null {
  return URL.canParse(value) ? new URL(value).origin : null;
}

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0");
}

/** 403 unless the request comes from this site's own pages; 415 unless its body is of `body`'s kind. */
export function requireSameSiteRequest(request: Request, context: AppLoadContext, body: BodyKind): void {
  const site = siteOf(request, context).origin;
  const origin = request.headers.get("origin");
  const referer = request.headers.get("referer");
  if (origin !== null) {
    if (originOf(origin) !== site) throw forbidden(`Cross-site request refused: Origin ${origin} is not ${site}`);
  } else if (referer !== null) {
    if (originOf(referer) !== site) throw forbidden(`Cross-site request refused: the Referer is not on ${site}`);
  } else {
    throw forbidden(`Cross-site request refused: a change must carry an Origin (or Referer) naming ${site}`);
  }
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // A request without a body (a browser's bodiless sign-out) has no type to misread; a route that needs one says so.
  if (!type && !hasBody(request)) return;
  if (!ACCEPTED[body].includes(type)) {
    throw new Refusal(415, `Send the body as ${DESCRIBED[body]}${type ? ` (got ${type})` : ""}`);
  }
}
