import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlsDeep, redactUrlsIn } from "./redact.ts";

describe("redaction of URLs", () => {
  it("shows a URL's server without its user, password or secret query values", () => {
    expect(redactUrl("http://user:S3cret@ord.example:8080")).toBe("http://[redacted]@ord.example:8080/");
    expect(redactUrl("postgres://spooks:p%40ss word@db:5432/spooks?sslmode=require")).toBe(
      "postgres://[redacted]@db:5432/spooks?sslmode=require",
    );
    expect(redactUrl("postgres://db/spooks?user=a&password=S3cret&sslmode=disable")).toBe(
      "postgres://db/spooks?user=a&password=[redacted]&sslmode=disable",
    );
    expect(redactUrl("https://ord.example")).toBe("https://ord.example");
    expect(redactUrl("giveaway:12")).toBe("giveaway:12");
  });

  it("finds them inside a text and in every string of a JSON value", () => {
    expect(redactUrlsIn("connect to http://u:S3cret@127.0.0.1:9/x failed; see https://a@b.example?token=T0k")).toBe(
      "connect to http://[redacted]@127.0.0.1:9/x failed; see https://[redacted]@b.example?token=[redacted]",
    );
    expect(redactUrlsDeep({ target: "http://u:S3cret@h", list: [{ reason: "x postgres://p:q@h/db" }], n: 3, at: null })).toEqual({
      target: "http://[redacted]@h",
      list: [{ reason: "x postgres://[redacted]@h/db" }],
      n: 3,
      at: null,
    });
  });
});
