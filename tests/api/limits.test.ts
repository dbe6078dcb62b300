/**
 * Limits that hold (issue 20, item 1), over real HTTP on a real database: a request counts against the
 * route React Router serves it as, however its path is spelled (percent-encoded, `//host` in front, another
 * case, `.data`); a path cannot choose the host the request is answered as; two servers on one database
 * share one count; item pictures and the general reads have limits of their own, the probes none.
 */
import { afterAll, describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { useApi, type LooseJson } from "./support.ts";

const ctx = useApi();

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serverWith(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer({ sql: ctx.sql, adminAddress: ctx.admin.address, env });
  servers.push(server);
  return server;
}

type Answer = { status: number; body: LooseJson };

/** Sends `target` exactly as written (no URL resolution: `//x/…` and `%73` reach the server as they are). */
const send = (base: string, method: string, target: string, headers: Record<string, string> = {}, body?: string) =>
  sendRaw(base, method, target, headers, body) as Promise<Answer>;

describe("a request counts against the route it reaches", () => {
  it("sign-in: after the plain path's 429, the encoded, `//host`, upper-case and .data spellings are refused too", async () => {
    const server = await serverWith({ RATE_LIMIT_SIGNIN_PER_MIN: "2" });
    const query = `?address=${ctx.admin.address}`;
    for (let i = 0; i < 2; i++) expect((await send(server.url, "GET", `/api/auth/challenge${query}`)).status).toBe(200);
    expect((await send(server.url, "GET", `/api/auth/challenge${query}`)).status).toBe(429);
    for (const spelling of [
      "/api/auth/%63hallenge",
      "//x/api/auth/challenge",
      "/API/Auth/Challenge/",
      "/api/auth/challenge.data",
      "/api/auth/%63hallenge.data",
    ]) {
      const answer = await send(server.url, "GET", `${spelling}${query}`);
      expect(answer.status, spelling).toBe(429);
      expect(answer.body.message, spelling).toMatch(/^Too many sign-in requests/);
    }
  });

  it("signed routes: POST /api/%73take and //x/api/stake are limited as /api/stake, before any signature is read", async () => {
    const server = await serverWith({ RATE_LIMIT_SIGNED_PER_MIN: "1" });
    const json = { "content-type": "application/json" };
    expect((await send(server.url, "POST", "/api/%73take", json, "{}")).status).toBe(400);
    expect((await send(server.url, "POST", "/api/%73take", json, "{}")).status).toBe(429);
    expect((await send(server.url, "POST", "//x/api/stake", json, "{}")).status).toBe(429);
    expect((await send(server.url, "POST", "/api/proposals/1/vot%65", json, "{}")).status).toBe(429);
  });

  it("email subscriptions and Discord link starts have limits of their own (issue 32, items 1 and 7)", async () => {
    const server = await serverWith({ RATE_LIMIT_EMAIL_PER_MIN: "2", RATE_LIMIT_DISCORD_LINK_PER_MIN: "3" });
    const json = { "content-type": "application/json" };
    for (let i = 0; i < 2; i++) expect((await send(server.url, "POST", "/api/notifications/email", json, "{}")).status).toBe(400);
    const email = await send(server.url, "POST", "/api/notifications/%65mail", json, "{}");
    expect(email.status).toBe(429);
    expect(email.body.message).toMatch(/^Too many email subscriptions from your address: at most 2 per 60 s/);
    // Its own count: the other signed routes are not limited by it.
    expect((await send(server.url, "POST", "/api/stake", json, "{}")).status).toBe(400);
    // The Discord link start is a page (404 here: Discord is off), limited all the same, before it runs.
    for (let i = 0; i < 3; i++) expect((await send(server.url, "GET", "/discord/link?address=D")).status).toBe(404);
    const link = await send(server.url, "GET", "/Discord/Link?address=D");
    expect(link.status).toBe(429);
    expect(link.body.message).toMatch(/^Too many Discord link requests from your address: at most 3 per 60 s/);
  });

  it("`//other.host/…` does not choose the host: the challenge names the site the request was sent to", async () => {
    const answer = await send(ctx.url, "GET", `//evil.example/api/auth/challenge?address=${ctx.admin.address}`);
    expect(answer.status).toBe(200);
    expect(answer.body.message).toMatch(new RegExp(`^${new URL(ctx.url).host.replace(/\./g, "\\.")} wants you to sign in`));
    expect(answer.body.message).not.toContain("evil.example");
  });
});

describe("limits shared by every server on one database", () => {
  it("two servers together allow RATE_LIMIT_SIGNIN_PER_MIN once, not twice", async () => {
    const limit = 5;
    const env = { RATE_LIMIT_SIGNIN_PER_MIN: String(limit), TRUST_PROXY: "loopback" };
    const [first, second] = [await serverWith(env), await serverWith(env)];
    const client = { "x-forwarded-for": "203.0.113.7" };
    const statuses: number[] = [];
    for (let i = 0; i < 4 * limit; i++) {
      const server = i % 2 === 0 ? first : second;
      statuses.push((await send(server.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, client)).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit);
    expect(statuses.slice(limit).every((status) => status === 429)).toBe(true);
  });
});

describe("pictures and reads have limits of their own; the probes none", () => {
  it("GET /content/{id}: RATE_LIMIT_CONTENT_PER_MIN; other reads: RATE_LIMIT_READS_PER_MIN; /api/live, /ready, /health: never", async () => {
    const server = await serverWith({ RATE_LIMIT_CONTENT_PER_MIN: "2", RATE_LIMIT_READS_PER_MIN: "3", TRUST_PROXY: "loopback" });
    const client = { "x-forwarded-for": "203.0.113.9" };
    const picture = "/content/nope";
    expect((await send(server.url, "GET", picture, client)).status).toBe(400);
    expect((await send(server.url, "GET", picture, client)).status).toBe(400);
    const limited = await send(server.url, "GET", "/%63ontent/nope", client);
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Too many picture requests/);
    for (let i = 0; i < 3; i++) expect((await send(server.url, "GET", "/api/leaderboard", client)).status).toBe(200);
    expect((await send(server.url, "GET", "/api/giveaways", client)).status).toBe(429);
    expect((await send(server.url, "GET", "/rewards", client)).status).toBe(429);
    for (const probe of ["/api/live", "/api/ready", "/api/health"]) {
      for (let i = 0; i < 5; i++) expect((await send(server.url, "GET", probe, client)).status, probe).toBe(200);
    }
  });
});
