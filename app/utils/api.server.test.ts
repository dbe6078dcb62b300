/**
 * `answer` (app/utils/api.server.ts): an answer is what its schema makes of the data, whether the data is frozen
 * (kept for many requests, its JSON built once) or not (built for each answer).
 */
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineRoute } from "../api/kit.ts";
import { answer } from "./api.server.ts";

const itemSchema = z.object({ name: z.string(), stakedAt: z.date().transform((date) => date.toISOString()) });
const route = defineRoute({
  operationId: "getThings",
  method: "GET",
  path: "/api/things",
  tag: "Things",
  summary: "Things",
  description: "Things.",
  auth: "none",
  responses: { 200: { description: "The things.", schema: z.array(itemSchema), example: [] } },
});
const things = () => [{ name: "Spooks #1", stakedAt: new Date("2026-12-02T10:00:00Z"), extra: "dropped" }];
const expected = [{ name: "Spooks #1", stakedAt: "2026-12-02T10:00:00.000Z" }];

describe("answer", () => {
  it("answers frozen data as the schema makes it, with the same headers, building its JSON once", async () => {
    const parse = vi.spyOn(route.responses[200].schema, "parse");
    const frozen = things();
    Object.freeze(frozen);
    const [first, second] = [answer(route, 200, frozen, { "X-Extra": "1" }), answer(route, 200, frozen)];
    const plain = answer(route, 200, things());
    expect(await first.json()).toEqual(expected);
    expect(await second.json()).toEqual(expected);
    expect(await plain.json()).toEqual(expected);
    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(plain.headers.get("content-type"));
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    expect(first.headers.get("x-extra")).toBe("1");
    expect(second.headers.get("x-extra")).toBeNull();
    // Twice for the frozen data would mean its JSON was built again; the unfrozen data is parsed each time.
    expect(parse).toHaveBeenCalledTimes(2);
    answer(route, 200, things());
    expect(parse).toHaveBeenCalledTimes(3);
  });

  it("refuses frozen data that breaks the contract, as any other", () => {
    expect(() => answer(route, 200, Object.freeze([{ name: 1 }]) as never)).toThrow();
  });
});
