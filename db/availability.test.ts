/** Which failures are "the database is unavailable" (503) and which stay the request's or the code's. */
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./availability.server.ts";

const serverError = (code: string) => Object.assign(new Error(code), { severity: "FATAL", code });

describe("isDatabaseUnavailable", () => {
  it.each([
    ["a refused connection", Object.assign(new Error("connect"), { code: "ECONNREFUSED" })],
    ["a connection closed by the client library", Object.assign(new Error("closed"), { code: "CONNECTION_CLOSED" })],
    ["an admin shutdown", serverError("57P01")],
    ["a server starting up", serverError("57P03")],
    ["a connection failure", serverError("08006")],
    ["too many connections", serverError("53300")],
    ["refusals from every address of a name", new AggregateError([Object.assign(new Error("a"), { code: "ECONNREFUSED" })])],
  ])("%s is", (_, error) => expect(isDatabaseUnavailable(error)).toBe(true));

  it.each([
    ["a constraint violation", serverError("23514")],
    ["a syntax error", serverError("42601")],
    ["a SQLSTATE-looking code without a server severity", Object.assign(new Error("x"), { code: "57P01" })],
    ["a plain error", new Error("boom")],
    ["not an error", "ECONNREFUSED"],
  ])("%s is not", (_, error) => expect(isDatabaseUnavailable(error)).toBe(false));
});
