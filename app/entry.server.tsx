/**
 * Server rendering (React Router's default Node entry) with two changes:
 * - the page's inline scripts (React Router's hydration data and module loader, ScrollRestoration, React's
 *   streaming chunks) carry this request's CSP nonce, which server/security.ts put in the load context and
 *   in the Content-Security-Policy header. No inline script runs without it;
 * - errors (a loader's or action's, a render's) are logged through the request's logger, with their stack
 *   and the request id, instead of console.error.
 */
import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import { PassThrough } from "node:stream";
import type { RenderToPipeableStreamOptions } from "react-dom/server";
import { renderToPipeableStream } from "react-dom/server";
import type { AppLoadContext, EntryContext, HandleErrorFunction } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { decodedPath, redactSecretPath } from "./domain/redact.ts";
import { NonceContext } from "./lib/nonce.ts";

export const streamTimeout = 5_000;

/**
 * What React Router reports: a page's loader or action failing, a render failing, a resource route
 * throwing, an action refused as cross-site. A 4xx it answers itself (say, a method no route takes) is
 * the caller's mistake, logged at info; a refused cross-site action at warn (a proxy not trusted, or an
 * attack).
 */
export const handleError: HandleErrorFunction = (error, { request, context }: { request: Request; context: AppLoadContext }) => {
  if (request.signal.aborted) return; // the caller left: not an error of ours
  const where = { method: request.method, path: redactSecretPath(decodedPath(request.url)) };
  if (isCrossSiteAction(request)) {
    return void context.logger.warn({ msg: "cross-site action refused", ...where, origin: request.headers.get("origin") });
  }
  if (isRouteErrorResponse(error)) {
    const cause = (error as { error?: unknown }).error ?? error; // React Router keeps its own Error inside
    if (error.status < 500) return void context.logger.info({ msg: "page refused", ...where, status: error.status, err: cause });
    return void context.logger.error({ msg: "page error", ...where, status: error.status, err: cause });
  }
  context.logger.error({ msg: "page error", ...where, err: error });
};

/** What React Router refuses (400) before running an action: an Origin that is not the request's own. */
function isCrossSiteAction(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (request.method === "GET" || request.method === "HEAD" || !origin || origin === "null") return false;
  return origin !== new URL(request.url).origin;
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.cspNonce ?? "";

  return new Promise((resolve, reject) => {
    let shellRendered = false;
    const userAgent = request.headers.get("user-agent");
    // Bots and SPA mode wait for all content (no streaming).
    const readyOption: keyof RenderToPipeableStreamOptions =
      (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);

    const app = (
      <NonceContext.Provider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceContext.Provider>
    );
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce,
      [readyOption]() {
        shellRendered = true;
        const body = new PassThrough({
          final(callback) {
            clearTimeout(timeoutId);
            timeoutId = undefined;
            callback();
          },
        });
        responseHeaders.set("Content-Type", "text/html");
        pipe(body);
        resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
      },
      onShellError(error: unknown) {
        reject(error instanceof Error ? error : new Error(String(error)));
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        // Errors inside the shell reach handleError through React Router; these come after it was sent.
        if (shellRendered) {
          loadContext.logger.error({ msg: "page render error", path: redactSecretPath(decodedPath(request.url)), err: error });
        }
      },
    });
  });
}
