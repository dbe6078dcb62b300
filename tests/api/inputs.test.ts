/**
 * Every input (issue 20, item 4), over real HTTP on a real database: a browser's bodiless sign-out; giveaway
 * image URLs only from /uploads/ or https hosts, never with a backslash; and every answer JSON with a
 * `message`, Express's own fallbacks included (a missing file, a method nothing answers, a malformed body).
 */
import { describe, expect, it } from "vitest";
import { IMAGE_URL_RULE } from "../../app/domain/image-url.ts";
import { sendRaw } from "../support/raw-http.ts";
import { minutesFromNow, signIn, useApi, type LooseJson } from "./support.ts";

const ctx = useApi();

type Answer = { status: number; type: string; body: LooseJson; allow?: string };

/** Sends exactly these headers and target (no Content-Type or body unless given). */
const send = (method: string, target: string, headers: Record<string, string> = {}, body?: string) =>
  sendRaw(ctx.url, method, target, headers, body) as Promise<Answer>;

describe("sign-out", () => {
  it("works with no body and no Content-Type, as a browser's DELETE sends it; the session is revoked", async () => {
    const cookie = await signIn(ctx, ctx.admin);
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body.isAdmin).toBe(true);
    const signedOut = await send("DELETE", "/api/auth/session", { cookie, origin: ctx.url });
    expect([signedOut.status, signedOut.body]).toEqual([200, { success: true }]);
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body).toEqual({ address: null, isAdmin: false, role: null });
    // The cross-site check still comes first, body or not.
    expect((await send("DELETE", "/api/auth/session", { cookie, origin: "https://evil.example" })).status).toBe(403);
    // A body must still say what it is.
    expect((await send("DELETE", "/api/auth/session", { cookie, origin: ctx.url }, "{}")).status).toBe(415);
  });
});

describe("giveaway image URLs", () => {
  const giveaway = (imageUrl: string) => ({
    title: "Ghost pack",
    description: "Win it",
    imageUrl,
    pointsCost: 10,
    endDate: minutesFromNow(60).toISOString(),
  });

  it("only /uploads/… or https://host/…: http, backslashes, other paths and schemes are refused with nothing stored", async () => {
    const cookie = await ctx.adminCookie();
    const count = async () => (await ctx.sql<{ n: number }[]>`select count(*)::int as n from giveaways`)[0].n;
    const before = await count();
    for (const imageUrl of [
      "http://images.example/a.png",
      "/\\evil.example/a.png",
      "https:\\\\evil.example\\a.png",
      "//evil.example/a.png",
      "/admin",
      "/uploads/../../etc/passwd",
      "javascript:alert(1)",
      "https://user:pass@images.example/a.png",
    ]) {
      const refused = await ctx.call("POST", "/api/giveaways", giveaway(imageUrl), { cookie });
      expect([refused.status, refused.body.message], imageUrl).toEqual([400, IMAGE_URL_RULE]);
    }
    expect(await count()).toBe(before);
    const created = await ctx.call("POST", "/api/giveaways", giveaway("https://images.example/a.png"), { cookie });
    expect(created.status).toBe(201);
    const { id } = created.body;
    const patched = await ctx.call("PATCH", `/api/giveaways/${id}/image`, { imageUrl: "/\\evil.example/b.png" }, { cookie });
    expect([patched.status, patched.body.message]).toEqual([400, IMAGE_URL_RULE]);
    const fine = await ctx.call("PATCH", `/api/giveaways/${id}/image`, { imageUrl: "/uploads/b.png" }, { cookie });
    expect([fine.status, fine.body.imageUrl]).toEqual([200, "/uploads/b.png"]);
  });
});

describe("every answer is JSON with a message, Express's own fallbacks included", () => {
  const expectJsonMessage = (answer: Answer, status: number) => {
    expect(answer.status).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    expect(typeof answer.body.message).toBe("string");
  };

  it("a file that is not there under /uploads or /assets: 404", async () => {
    expectJsonMessage(await send("GET", "/uploads/nothing.png"), 404);
    expectJsonMessage(await send("GET", "/uploads/%zz"), 404);
    expectJsonMessage(await send("GET", "/assets/nothing.js"), 404);
  });

  it("a method nothing answers (TRACE, PROPFIND): 405 with Allow; an unknown /api path: 404", async () => {
    for (const method of ["TRACE", "PROPFIND"]) {
      const answer = await send(method, "/api/stake");
      expectJsonMessage(answer, 405);
      expect(answer.body.message).toBe(`Method ${method} not allowed`);
      expect(answer.allow).toContain("GET");
    }
    expectJsonMessage(await send("GET", "/api/nothing-here"), 404);
  });

  it("malformed JSON, a malformed %, a body too large", async () => {
    const json = { "content-type": "application/json" };
    expectJsonMessage(await send("POST", "/api/stake", json, "{bad"), 400);
    expectJsonMessage(await send("GET", "/api/stats/%E0%A4%A"), 400);
    expectJsonMessage(await send("GET", "/content/%zz"), 400);
    expectJsonMessage(await send("GET", "/rewards%"), 400);
    expectJsonMessage(await send("POST", "/api/stake", json, `{"pad":"${"x".repeat(1024 * 1024)}"}`), 413);
  });
});
