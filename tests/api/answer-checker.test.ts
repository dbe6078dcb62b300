/**
 * The answer checker every API test runs (tests/api/support.ts): it passes what the OpenAPI document
 * documents and refuses, with a message naming the route, the status, the body and what is wrong, a
 * body its schema refuses, a status its route does not document, an answer that is not JSON, a method a
 * path does not document that is not refused, and an /api path no route claims that is not a 404.
 */
import { describe, expect, it } from "vitest";
import { EXAMPLE_REWARDS } from "../../app/api/holdings.ts";
import { buildOpenApiDocument } from "../../app/api/openapi.server.ts";
import { AnswerCheckError, createAnswerChecker, openApiPathOf, routePatternOf, type ReceivedAnswer } from "./answer-checker.ts";

const document = buildOpenApiDocument();
const checker = createAnswerChecker(document);
const json = (extra: Record<string, string> = {}) => new Headers({ "content-type": "application/json; charset=utf-8", ...extra });

const rewards = EXAMPLE_REWARDS;

const answer = (overrides: Partial<ReceivedAnswer>): ReceivedAnswer => ({
  method: "GET",
  path: "/api/rewards/DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L?_t=1761933600000",
  status: 200,
  body: rewards,
  headers: json(),
  ...overrides,
});

function refusal(received: ReceivedAnswer): string {
  try {
    checker.check(received);
  } catch (error) {
    expect(error).toBeInstanceOf(AnswerCheckError);
    return (error as Error).message;
  }
  throw new Error(`the checker passed ${received.method} ${received.path} ${received.status} ${JSON.stringify(received.body)}`);
}

describe("a documented route", () => {
  it("passes an answer its documented schema accepts, whatever the query string", () => {
    expect(() => checker.check(answer({}))).not.toThrow();
    expect(() => checker.check(answer({ body: { ...rewards, stakingSince: null, rank: 0 } }))).not.toThrow();
    expect(() => checker.check(answer({ status: 400, body: { message: "Invalid Dogecoin address" } }))).not.toThrow();
  });

  it("refuses a body that breaks the schema, naming the route, the status, the field and the body", () => {
    const message = refusal(answer({ body: { ...rewards, rank: "3" } }));
    expect(message).toContain("GET /api/rewards/DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L?_t=1761933600000 answered 200");
    expect(message).toContain("GET /api/rewards/{address} 200");
    expect(message).toContain("body/rank must be integer");
    expect(message).toContain('"rank": "3"');
    expect(refusal(answer({ body: { ...rewards, rewardTier: undefined } }))).toContain("must have required property 'rewardTier'");
    expect(refusal(answer({ body: { ...rewards, secret: "x" } }))).toContain("must NOT have additional properties");
    expect(refusal(answer({ body: { ...rewards, stakingSince: "yesterday" } }))).toContain("body/stakingSince");
    expect(refusal(answer({ status: 400, body: { error: "Invalid Dogecoin address" } }))).toContain(
      "must have required property 'message'",
    );
  });

  it("refuses a status the route does not document, listing the ones it does", () => {
    const message = refusal(answer({ status: 404, body: { message: "Not found" } }));
    expect(message).toContain("answered 404, which GET /api/rewards/{address} does not document (it documents 200, 400, 429, 500, 503)");
    expect(refusal(answer({ status: 201 }))).toContain("does not document");
  });

  it("refuses an answer that is not JSON", () => {
    expect(refusal(answer({ headers: new Headers({ "content-type": "text/html" }), body: "<h1>Oops</h1>" }))).toContain(
      'as "text/html", not JSON',
    );
  });

  it("finds the route as React Router does: any case, a trailing slash, static segments before parameters", () => {
    expect(() => checker.check(answer({ path: "/API/Rewards/DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L/" }))).not.toThrow();
    expect(openApiPathOf(routePatternOf("/api/giveaways/enter")!)).toBe("/api/giveaways/enter");
    expect(openApiPathOf(routePatternOf("/api/giveaways/12")!)).toBe("/api/giveaways/{id}");
    expect(routePatternOf("/api/no/such/thing")).toBe("api/*");
  });
});

describe("what a path does not document", () => {
  it("a method the path does not document must be refused: 405 with Allow, or 404, as { message }", () => {
    const post = (overrides: Partial<ReceivedAnswer>) =>
      answer({ method: "POST", status: 405, body: { message: "Method POST not allowed" }, headers: json({ allow: "GET" }), ...overrides });
    expect(() => checker.check(post({}))).not.toThrow();
    expect(() => checker.check(post({ status: 404, body: { message: "Not found" }, headers: json() }))).not.toThrow();
    expect(refusal(post({ status: 200, body: rewards }))).toContain(
      "/api/rewards/{address} documents no POST, so it must answer 405 or 404, not 200",
    );
    expect(refusal(post({ headers: json() }))).toContain("405 without an Allow header");
    expect(refusal(post({ body: { error: "nope" } }))).toContain("must have required property 'message'");
  });

  it("an /api path no route claims must be the catch-all's 404 { message }", () => {
    expect(() => checker.check(answer({ path: "/api/nope", status: 404, body: { message: "Not found" } }))).not.toThrow();
    expect(refusal(answer({ path: "/api/nope", status: 200, body: {} }))).toContain(
      "no route claims this path, so it must answer 404, not 200",
    );
  });

  it("refuses any answer from an /api route that has no contract", () => {
    const without = structuredClone(document);
    delete (without.paths as Record<string, unknown>)["/api/stats/{address}"];
    const anything = answer({ path: "/api/stats/DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L", status: 418, body: "teapot" });
    expect(() => createAnswerChecker(without).check(anything)).toThrow("the route /api/stats/{address} has no contract");
  });

  it("leaves alone what is not a contract answer: the documentation's own routes, pages", () => {
    for (const path of ["/api/openapi.json", "/api/docs", "/api/docs/swagger-ui.css", "/admin", "/"]) {
      expect(
        () => checker.check(answer({ path, body: "<!doctype html>", headers: new Headers({ "content-type": "text/html" }) })),
        path,
      ).not.toThrow();
    }
  });
});
