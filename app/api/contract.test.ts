/**
 * The /api contract against itself and against the server: the OpenAPI document validates; every example
 * (request bodies, answers, signed messages) is what the schemas, templates and the server's parsers
 * accept; every /api route of app/routes.ts has a contract for each method its module answers, and every
 * contract names a route and method that really answer; operationIds are unique; rate limits and signed
 * message formats are the ones the server applies.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import pino from "pino";
import type { AppLoadContext } from "react-router";
import { parseApprovalMessage } from "../domain/approvals.ts";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { parseDiscordAccountMessage, parseLinkMessage, parseUnlinkMessage } from "../domain/discord.ts";
import {
  parseBulkStakeMessage,
  parseClaimMessage,
  parseEmailSubscribeMessage,
  parseEntryMessage,
  parseSignInMessage,
  parseStakeMessage,
  parseVoteMessage,
} from "../domain/messages.ts";
import { loadConfig } from "../utils/env.server.ts";
import { withRequestLogger } from "../utils/logger.server.ts";
import { limitOf } from "../../server/rate-limits.ts";
import {
  apiRoutePatterns,
  createAnswerChecker,
  isApiCatchAll,
  isDocumentationRoute,
  openApiPathOf,
} from "../../tests/api/answer-checker.ts";
import { API_ROUTES } from "./index.ts";
import { answersOf, PROBE_PATHS, type HttpMethod, type RouteContract } from "./kit.ts";
import { SIGNED_MESSAGE_NAMES, SIGNED_MESSAGES, type SignedMessageName } from "./messages.ts";
import { buildOpenApiDocument, DEFAULT_RATE_LIMITS } from "./openapi.server.ts";

const document = buildOpenApiDocument();
const served = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
const describeRoute = (route: RouteContract) => `${route.method} ${route.path} (${route.operationId})`;

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 (and the validator does refuse a broken one)", async () => {
    const validator = new Validator();
    const result = await validator.validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe("3.1");
    const broken = structuredClone(served) as { paths: Record<string, Record<string, { parameters?: unknown }>> };
    Object.values(Object.values(broken.paths)[0])[0].parameters = [{ in: "body", name: "x" }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("every answer schema compiles as the API tests' answer checks compile it", () => {
    expect(() => createAnswerChecker(document).compileAll()).not.toThrow();
  });

  it("documents every route of the contract, with its auth, rate limit and every answer answersOf gives", () => {
    const paths = document.paths as Record<
      string,
      Record<string, { operationId: string; security: unknown[]; responses: Record<string, unknown> } & Record<string, unknown>>
    >;
    for (const route of API_ROUTES) {
      const operation = paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, describeRoute(route)).toBe(route.operationId);
      expect(Object.keys(operation.responses).sort(), describeRoute(route)).toEqual(Object.keys(answersOf(route)).sort());
      expect(operation["x-auth"], describeRoute(route)).toBe(route.auth);
      expect(operation.security, describeRoute(route)).toEqual(
        route.auth === "admin-session" ? [{ adminSession: [] }, { adminSessionHttp: [] }] : [],
      );
      if (route.rateLimit) {
        const { limit } = operation["x-rate-limit"] as { limit: number };
        expect(limit, describeRoute(route)).toBe(
          {
            signIn: DEFAULT_RATE_LIMITS.signInPerMin,
            signed: DEFAULT_RATE_LIMITS.signedPerMin,
            email: DEFAULT_RATE_LIMITS.emailPerMin,
            content: DEFAULT_RATE_LIMITS.contentPerMin,
            interactions: DEFAULT_RATE_LIMITS.interactionsPerMin,
          }[route.rateLimit],
        );
      }
    }
  });

  it("states the server's configured rate limits", () => {
    const configured = buildOpenApiDocument({
      ...DEFAULT_RATE_LIMITS,
      signInPerMin: 7,
      signedPerMin: 0,
      contentPerMin: 9,
      interactionsPerMin: 11,
      emailPerMin: 2,
    });
    const limited = API_ROUTES.filter((route) => route.rateLimit);
    expect(limited.length).toBeGreaterThan(0);
    for (const route of limited) {
      const operation = (configured.paths as Record<string, Record<string, Record<string, unknown>>>)[route.path][
        route.method.toLowerCase()
      ];
      expect((operation["x-rate-limit"] as { limit: number }).limit).toBe(
        { signIn: 7, signed: 0, content: 9, interactions: 11, email: 2 }[route.rateLimit!],
      );
    }
    expect(configured.info.description).toContain("7 requests per minute on this server");
    expect(configured.info.description).toContain(
      "signed actions (stake, unstake, their bulk forms, giveaway entry, vote): no limit on this server",
    );
  });
});

describe("the contract's examples", () => {
  const checker = createAnswerChecker(document);
  const json = new Headers({ "content-type": "application/json" });

  it("every JSON request body has an example its schema accepts", () => {
    for (const route of API_ROUTES.filter((candidate) => candidate.body?.kind === "json")) {
      const body = route.body!;
      expect(body.example, `${describeRoute(route)}: no request example`).toBeDefined();
      const parsed = body.schema.safeParse(body.example);
      expect(parsed.success ? [] : parsed.error.issues, describeRoute(route)).toEqual([]);
    }
  });

  it("every answer has an example that matches its documented schema and that the server's schema produces", () => {
    for (const route of API_ROUTES) {
      const samplePath = route.path.replace(/\{[^}]+\}/g, "1");
      for (const [status, answer] of Object.entries(answersOf(route))) {
        const what = `${describeRoute(route)} ${status}`;
        expect(answer.example, `${what}: no example`).toBeDefined();
        // As the docs state it (the wire format): the same check the API tests run on real answers.
        expect(
          () => checker.check({ method: route.method, path: samplePath, status: Number(status), body: answer.example, headers: json }),
          what,
        ).not.toThrow();
        // As the server builds it: the example turned back into server values parses to itself.
        const server = z.safeEncode(answer.schema, answer.example);
        expect(server.success ? [] : server.error.issues, what).toEqual([]);
        expect(answer.schema.parse(server.data), what).toEqual(answer.example);
      }
    }
  });
});

/** `{name}` placeholders of a template, as a pattern of the whole text. */
function templatePattern(template: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${template
      .split(/\{[A-Za-z]+\}/)
      .map(escape)
      .join("[\\s\\S]+?")}$`,
  );
}

const SERVER_PARSERS: Record<SignedMessageName, (message: string) => unknown> = {
  stake: (message) => parseStakeMessage("stake", message),
  unstake: (message) => parseStakeMessage("unstake", message),
  "bulk-stake": (message) => parseBulkStakeMessage("stake", message),
  "bulk-unstake": (message) => parseBulkStakeMessage("unstake", message),
  "giveaway-entry": parseEntryMessage,
  "giveaway-claim": parseClaimMessage,
  vote: parseVoteMessage,
  "sign-in": parseSignInMessage,
  "email-subscribe": parseEmailSubscribeMessage,
  "discord-link": parseLinkMessage,
  "discord-unlink": parseUnlinkMessage,
  "approve-action": parseApprovalMessage,
  "discord-account": parseDiscordAccountMessage,
};

describe("the signed message formats", () => {
  it.each(SIGNED_MESSAGE_NAMES)("%s: the example fits the template, every placeholder is explained, the server parses it", (name) => {
    const format = SIGNED_MESSAGES[name];
    expect(format.example).toMatch(templatePattern(format.template));
    const placeholders = [...format.template.matchAll(/\{([A-Za-z]+)\}/g)].map((match) => match[1]);
    expect([...new Set(placeholders)].sort()).toEqual(Object.keys(format.placeholders).sort());
    expect(SERVER_PARSERS[name](format.example)).not.toBeNull();
    // And only that format's parser: the example of another format is not this one.
    for (const other of SIGNED_MESSAGE_NAMES.filter((candidate) => candidate !== name)) {
      expect(SERVER_PARSERS[name](SIGNED_MESSAGES[other].example), `${other}'s example read as ${name}`).toBeNull();
    }
  });

  it("every signed route names a format, and only signed routes (and the admin's approval, signed besides its session) do", () => {
    for (const route of API_ROUTES) {
      if (route.auth === "signature" || route.operationId === "approveAction")
        expect(SIGNED_MESSAGE_NAMES, describeRoute(route)).toContain(route.signedMessage);
      else expect(route.signedMessage, describeRoute(route)).toBeUndefined();
    }
  });
});

describe("the contract and the routes", () => {
  it("operationIds are unique, and each method and path is described once", () => {
    const ids = API_ROUTES.map((route) => route.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const operations = API_ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(operations.filter((operation, index) => operations.indexOf(operation) !== index)).toEqual([]);
  });

  it("every query accepts the browser's `_t` cache-buster (unknown query parameters are ignored, never refused)", () => {
    for (const route of API_ROUTES.filter((candidate) => candidate.query)) {
      const catchall = route.query!._zod.def.catchall;
      expect(catchall?._zod.def.type, describeRoute(route)).not.toBe("never");
    }
  });

  it("each route's rate limit is the one server/rate-limits.ts applies to it (the probes none, the rest the reads limit)", () => {
    for (const route of API_ROUTES) {
      const expected = route.rateLimit ?? (PROBE_PATHS.includes(route.path) ? null : "reads");
      expect(limitOf(route.method, route.path.replace(/\{[^}]+\}/g, "1")), describeRoute(route)).toBe(expected);
    }
  });

  it("every method an /api route module answers has a contract, and every contract names a method a route answers", async () => {
    const answered = await answeredOperations();
    const contracted = API_ROUTES.map((route) => `${route.method} ${route.path}`).sort();
    expect(
      answered.filter((operation) => !contracted.includes(operation)),
      "answered without a contract",
    ).toEqual([]);
    expect(
      contracted.filter((operation) => !answered.includes(operation)),
      "a contract no route answers",
    ).toEqual([]);
  });
});

const PROBED_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** A database that fails every use: a probed handler never reaches one. */
const noDatabase = new Proxy(() => {}, {
  apply: () => {
    throw new Error("no database while probing routes");
  },
  get: () => {
    throw new Error("no database while probing routes");
  },
});

/**
 * Which `METHOD /api/path` the route modules answer: each module's loader (GET) and action (other methods)
 * is called with a request that carries no credentials and a context with no database; an answer other
 * than 405 (or no such export) means the method is answered. Nothing can change: there is no database.
 */
async function answeredOperations(): Promise<string[]> {
  const silent = pino({ level: "silent" }); // the probes' 500s would be logged
  const context = {
    sql: noDatabase,
    config: { ...loadConfig({ NODE_ENV: "test", ORD_URL: "http://127.0.0.1:9" }), adminAddress: "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L" },
    demoWallets: [],
    logger: silent,
  } as unknown as AppLoadContext;
  const answered: string[] = [];
  const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    for (const { pattern, file } of apiRoutePatterns()) {
      if (isApiCatchAll(pattern) || isDocumentationRoute(pattern)) continue;
      const module = (await import(/* @vite-ignore */ new URL(`../${file}`, import.meta.url).pathname)) as Record<string, unknown>;
      const path = openApiPathOf(pattern);
      const url = `http://127.0.0.1${path.replace(/\{[^}]+\}/g, "1")}`;
      const params = Object.fromEntries([...pattern.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => [match[1], "1"]));
      for (const method of PROBED_METHODS) {
        const handler = module[method === "GET" ? "loader" : "action"] as ((args: unknown) => unknown) | undefined;
        if (!handler) continue;
        const request = new Request(url, {
          method,
          headers: { "content-type": "application/json", origin: "http://127.0.0.1" },
          body: method === "GET" ? undefined : "{}",
        });
        const result = await withRequestLogger(silent, async () => handler({ request, params, context })).catch((error: unknown) => error);
        const status = result instanceof Response ? result.status : 500;
        if (status !== 405) answered.push(`${method} ${path}`);
      }
    }
  } finally {
    consoleError.mockRestore();
  }
  return answered.sort();
}
