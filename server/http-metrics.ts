/**
 * HTTP metrics (app/utils/metrics.server.ts): the requests in flight, and each answered request counted and
 * timed by method, status and route PATTERN (`/api/giveaways/:id`, never the raw path, whose ids and addresses
 * would make a series per value). `measure` goes first, so the time covers the whole answer; `route` goes where React Router's part
 * begins (after the static files) and names the route from the build's manifest, as React Router would match
 * it. A request answered before that (a file) is `static`. Refusals by a rate limit (429) are counted apart.
 */
import type express from "express";
import type { ServerBuild } from "react-router";
import { observeHttpRequest, trackRequestInFlight } from "../app/utils/metrics.server.ts";

type Pattern = { name: string; regex: RegExp; score: number };

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const ROUTE = Symbol("metrics route");

type Labelled = express.Response & { [ROUTE]?: string };

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every route's full pattern with a matcher, ranked as React Router ranks them (static > dynamic > splat). */
export function routePatterns(routes: ServerBuild["routes"]): Pattern[] {
  const fullPath = (id: string): string => {
    const route = routes[id];
    if (!route) return "";
    const parent = route.parentId ? fullPath(route.parentId) : "";
    return [parent, route.path ?? ""].filter(Boolean).join("/");
  };
  const patterns = new Map<string, Pattern>();
  for (const route of Object.values(routes)) {
    if (!route || (route.path === undefined && !route.index)) continue;
    const segments = fullPath(route.id).split("/").filter(Boolean);
    let source = "";
    let score = 0;
    for (const segment of segments) {
      if (segment === "*") {
        source += "(?:/.*)?";
        score -= 2;
      } else if (segment.startsWith(":")) {
        source += "/[^/]+";
        score += 3;
      } else {
        source += `/${escape(segment)}`;
        score += 10;
      }
    }
    const name = `/${segments.join("/")}`;
    patterns.set(name, { name, regex: new RegExp(`^${source || "/?"}$`, "i"), score });
  }
  return [...patterns.values()].sort((a, b) => b.score - a.score);
}

/** The pattern React Router answers `path` with (its `.data` requests named as their page), or null. */
export function matchRoute(patterns: readonly Pattern[], path: string): string | null {
  const plain = path
    .replace(/\.data$/, "")
    .replace(/^\/_root$/, "/")
    .replace(/(.)\/+$/, "$1");
  return patterns.find((pattern) => pattern.regex.test(plain))?.name ?? null;
}

export function httpMetrics(build: ServerBuild | (() => Promise<ServerBuild>)): {
  measure: express.RequestHandler;
  route: express.RequestHandler;
} {
  const cache = new WeakMap<ServerBuild, Pattern[]>();
  const patternsOf = (server: ServerBuild) => {
    let patterns = cache.get(server);
    if (!patterns) cache.set(server, (patterns = routePatterns(server.routes)));
    return patterns;
  };
  return {
    measure: (req, res, next) => {
      const started = process.hrtime.bigint();
      // `close` comes after `finish`, and also when the client goes before its answer is sent.
      res.once("close", trackRequestInFlight());
      res.once("finish", () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const method = METHODS.has(req.method) ? req.method : "other";
        observeHttpRequest(method, (res as Labelled)[ROUTE] ?? "static", res.statusCode, seconds);
      });
      next();
    },
    route: (req, res, next) => {
      const label = (server: ServerBuild) => ((res as Labelled)[ROUTE] = matchRoute(patternsOf(server), req.path) ?? "unmatched");
      if (typeof build !== "function") {
        label(build);
        return next();
      }
      // Development: vite's build, loaded (and cached) by vite itself.
      void build()
        .then(label, () => ((res as Labelled)[ROUTE] = "unmatched"))
        .finally(() => next());
    },
  };
}
