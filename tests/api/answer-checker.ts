/**
 * Checks an answer the API gave against the OpenAPI document (app/api/openapi.server.ts): the route is
 * found as React Router finds it (app/routes.ts, `matchRoutes`: static segments first, any case, a
 * trailing slash), the status must be one its operation documents, and the body must match that
 * status's schema as the document states it (ajv, JSON Schema 2020-12, `#/components/...` refs resolved
 * in the document). A method the path does not document must be refused: 405 or 404 with `{ message }`;
 * so must any /api path no route claims (the catch-all's 404). tests/api/support.ts runs it on every
 * answer its `call` receives, so the documentation cannot drift from the server.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { matchRoutes, type RouteObject } from "react-router";
import appRoutes from "../../app/routes.ts";
import type { OpenApiDocument } from "../../app/api/openapi.server.ts";

/** What a test received. `path` may carry a query string. */
export type ReceivedAnswer = { method: string; path: string; status: number; body: unknown; headers: Headers };

/**
 * What to do with an /api route that has no contract yet: "skip" while the routes are being moved onto
 * the contract, "refuse" once every route has one (then an undocumented route fails the test).
 */

export class AnswerCheckError extends Error {}

/** The documentation itself: served JSON, not part of the contract it describes. */
const DOCUMENTATION_ROUTES = new Set(["api/openapi.json", "api/docs", "api/docs/:asset"]);

const CATCH_ALLS = new Set(["api/*", "content/*"]);

type RouteConfig = { file: string; path?: string; index?: boolean; children?: RouteConfig[] };

function routeObjects(config: readonly RouteConfig[]): RouteObject[] {
  return config.map((entry) =>
    entry.index
      ? { id: entry.file, index: true }
      : { id: entry.file, path: entry.path, children: entry.children ? routeObjects(entry.children) : undefined },
  );
}

const ROUTE_OBJECTS = routeObjects(appRoutes);

/** The route pattern (React Router syntax, `api/giveaways/:id`) that serves `pathname`, as the server picks it. */
export function routePatternOf(pathname: string): string | undefined {
  const matches = matchRoutes(ROUTE_OBJECTS, pathname);
  if (!matches) return undefined;
  return matches
    .map((match) => match.route.path)
    .filter(Boolean)
    .join("/");
}

/** `api/giveaways/:id` → `/api/giveaways/{id}` (an OpenAPI path template). */
export function openApiPathOf(routePattern: string): string {
  return `/${routePattern.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;
}

/** Every /api route pattern of app/routes.ts (the catch-all included), and /content's. */
export function apiRoutePatterns(): { pattern: string; file: string }[] {
  const found: { pattern: string; file: string }[] = [];
  const walk = (entries: readonly RouteConfig[], prefix: string) => {
    for (const entry of entries) {
      const pattern = [prefix, entry.path].filter(Boolean).join("/");
      if ((pattern.startsWith("api/") || pattern.startsWith("content/")) && !entry.children) found.push({ pattern, file: entry.file });
      if (entry.children) walk(entry.children, pattern);
    }
  };
  walk(appRoutes, "");
  return found;
}

export function isDocumentationRoute(pattern: string): boolean {
  return DOCUMENTATION_ROUTES.has(pattern);
}

export const isApiCatchAll = (pattern: string) => CATCH_ALLS.has(pattern);

type Operation = { responses?: Record<string, { content?: Record<string, unknown> }> };

const DOCUMENT_ID = "https://spooks.invalid/openapi.json";

/** JSON Pointer escaping of one path segment. */
const pointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, "~0").replace(/\//g, "~1"));

const show = (body: unknown) => {
  const text = typeof body === "string" ? JSON.stringify(body) : JSON.stringify(body, null, 2);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
};

export type AnswerChecker = {
  check(answer: ReceivedAnswer): void;
  /** Compiles every answer schema of the document (the CI check: an unresolvable ref fails here). */
  compileAll(): void;
};

export function createAnswerChecker(document: OpenApiDocument): AnswerChecker {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;

  function validatorAt(...segments: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${segments.map(pointer).join("/")}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  }

  function expectBody(validate: ValidateFunction, answer: ReceivedAnswer, what: string) {
    if (validate(answer.body)) return;
    throw new AnswerCheckError(
      `${answer.method} ${answer.path} answered ${answer.status} with a body that breaks ${what}:\n` +
        `  ${ajv.errorsText(validate.errors, { separator: "\n  ", dataVar: "body" })}\nbody: ${show(answer.body)}`,
    );
  }

  function expectJson(answer: ReceivedAnswer) {
    const type = answer.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(type)) {
      throw new AnswerCheckError(
        `${answer.method} ${answer.path} answered ${answer.status} as "${type}", not JSON\nbody: ${show(answer.body)}`,
      );
    }
  }

  /** A refusal every path gives beyond its operations: 405 (with Allow) or 404, as `{ message }`. */
  function expectRefusal(answer: ReceivedAnswer, statuses: number[], why: string) {
    if (!statuses.includes(answer.status)) {
      throw new AnswerCheckError(
        `${answer.method} ${answer.path}: ${why}, so it must answer ${statuses.join(" or ")}, not ${answer.status}\nbody: ${show(answer.body)}`,
      );
    }
    expectJson(answer);
    if (answer.status === 405 && !answer.headers.get("allow")) {
      throw new AnswerCheckError(`${answer.method} ${answer.path} answered 405 without an Allow header`);
    }
    expectBody(validatorAt("components", "schemas", "Error"), answer, "the Error schema ({ message })");
  }

  function check(answer: ReceivedAnswer) {
    const method = answer.method.toLowerCase();
    if (method === "head") return; // no body to check
    const pathname = new URL(answer.path, "http://api.invalid").pathname;
    if (!/^\/(api|content)(\/|$)/i.test(pathname)) return;
    const pattern = routePatternOf(pathname);
    if (pattern === undefined || isDocumentationRoute(pattern)) return;
    if (isApiCatchAll(pattern)) return expectRefusal(answer, [404], "no route claims this path");
    const template = openApiPathOf(pattern);
    const pathItem = paths[template];
    if (!pathItem) {
      throw new AnswerCheckError(
        `${answer.method} ${answer.path}: the route ${template} has no contract (app/api/), so nothing documents its answers`,
      );
    }
    const operation = pathItem[method];
    if (!operation) return expectRefusal(answer, [405, 404], `${template} documents no ${answer.method}`);
    const response = operation.responses?.[String(answer.status)];
    if (!response) {
      const documented = Object.keys(operation.responses ?? {}).join(", ");
      throw new AnswerCheckError(
        `${answer.method} ${answer.path} answered ${answer.status}, which ${answer.method} ${template} does not document (it documents ${documented})\nbody: ${show(answer.body)}`,
      );
    }
    if (!response.content) {
      if (answer.body !== "")
        throw new AnswerCheckError(`${answer.method} ${answer.path} answered ${answer.status} with a body where none is documented`);
      return;
    }
    const mediaType = (answer.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (mediaType !== "application/json" && response.content[mediaType]) {
      return expectBody(
        validatorAt("paths", template, method, "responses", String(answer.status), "content", mediaType, "schema"),
        answer,
        `the documented ${mediaType} schema of ${answer.method} ${template} ${answer.status}`,
      );
    }
    if (!response.content["application/json"]) return; // a picture's bytes (image/*)
    expectJson(answer);
    expectBody(
      validatorAt("paths", template, method, "responses", String(answer.status), "content", "application/json", "schema"),
      answer,
      `the documented schema of ${answer.method} ${template} ${answer.status}`,
    );
  }

  function compileAll() {
    for (const [template, pathItem] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(pathItem)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (response.content?.["application/json"])
            validatorAt("paths", template, method, "responses", status, "content", "application/json", "schema");
        }
      }
    }
  }

  return { check, compileAll };
}
