/**
 * Hardening for the open internet (docs/security.md), over real HTTP on a real database: one public
 * origin for sign-in (the Host relay and foreign challenges refused), the admin-only challenge, cookie
 * flags (PUBLIC_URL http and https, a trusted proxy), the cross-site check, the headers on a page, an API
 * answer and an upload, abuse limits, and the clean-up of dead sign-in rows.
 */
import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { bulkStakeMessage, SIGN_IN_STATEMENT, signInMessage } from "../../app/domain/messages.ts";
import { deleteExpiredAuthRows } from "../../db/queries/auth.server.ts";
import { startTestServer, type TestServer } from "../support/app-server.ts";
import { balanceUnits, newWallet, useApi, type LooseJson, type Wallet } from "./support.ts";

const ctx = useApi();

/** Not checked against the contract (some are not /api answers, or answers to a forged Host): each test checks what it reads. */
type Answer = { status: number; headers: http.IncomingHttpHeaders; body: LooseJson; text: string };

/** One request with exactly these headers (fetch cannot set Host); the body as JSON unless a string. */
function request(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, base),
      { method, headers: { ...headers, ...(payload ? { "content-length": String(Buffer.byteLength(payload)) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serverWith(env: Record<string, string>, rateLimitWindowMs?: number): Promise<TestServer> {
  const server = await startTestServer({ sql: ctx.sql, adminAddress: ctx.admin.address, env, rateLimitWindowMs });
  servers.push(server);
  return server;
}

const json = { "content-type": "application/json" };

/** Signs in as `wallet` on `base`, sending `headers` with both calls; answers the sign-in answer. */
async function signInOn(base: string, wallet: Wallet, headers: Record<string, string> = {}) {
  const challenge = await request(base, "GET", `/api/auth/challenge?address=${wallet.address}`, headers);
  expect(challenge.status).toBe(200);
  const message = challenge.body.message as string;
  const origin = headers["x-forwarded-host"]
    ? `${headers["x-forwarded-proto"] ?? "http"}://${headers["x-forwarded-host"]}`
    : new URL(base).origin;
  const session = await request(
    base,
    "POST",
    "/api/auth/session",
    { origin, ...json, ...headers },
    {
      address: wallet.address,
      message,
      signature: wallet.sign(message),
    },
  );
  return { message, session, setCookie: ([] as string[]).concat(session.headers["set-cookie"] ?? [])[0] ?? "" };
}

const count = async (table: "sessions" | "auth_challenges") =>
  (await ctx.sql<{ n: number }[]>`select count(*)::int as n from ${ctx.sql(table)}`)[0].n;

describe("only the site's own host names are served (DNS rebinding)", () => {
  it("without PUBLIC_URL: localhost, 127.0.0.1 and [::1] on any port; any other Host gets 421 and nothing is read or stored", async () => {
    const challenges = await count("auth_challenges");
    for (const host of ["evil.example", "evil.example:3000", "127.0.0.2", "localhost.evil.example", "[::2]:80"]) {
      const api = await request(ctx.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, { host });
      expect(api.status, host).toBe(421);
      expect(api.body.message).toMatch(/^This server answers only as localhost, 127\.0\.0\.1, \[::1\]: set PUBLIC_URL/);
      expect(api.headers["cache-control"]).toBe("no-store");
      const page = await request(ctx.url, "GET", "/", { host });
      expect([page.status, page.headers["content-type"]]).toEqual([421, "text/plain; charset=utf-8"]);
      expect(page.text).toMatch(/^This server answers only as/);
      expect((await request(ctx.url, "GET", "/favicon.svg", { host })).status).toBe(421);
    }
    expect(await count("auth_challenges")).toBe(challenges);
    // A rebound page cannot act as the signed-in admin either: the cookie comes along, the request is refused.
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    const rebound = await request(
      ctx.url,
      "POST",
      "/api/add-permanent-points",
      { host: "evil.example:3000", origin: "http://evil.example:3000", cookie, ...json },
      { address: holder.address, amount: 5, description: "rebound" },
    );
    expect(rebound.status).toBe(421);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);

    const port = new URL(ctx.url).port;
    for (const host of [`localhost:${port}`, "LOCALHOST.", "127.0.0.1:1", `[::1]:${port}`]) {
      const answer = await request(ctx.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, { host });
      expect(answer.status, host).toBe(200);
    }
    // The probes answer whatever the host: load balancers and orchestrators call them by address.
    for (const path of ["/api/live", "/api/ready", "/api/health"])
      expect((await request(ctx.url, "GET", path, { host: "10.0.0.7:3000" })).status).toBe(200);
  });

  it("with PUBLIC_URL: its host and the loopback names; the challenge names PUBLIC_URL whatever the Host", async () => {
    const server = await serverWith({ PUBLIC_URL: "https://spooks.example" });
    for (const host of ["spooks.example", "spooks.example:443", "Spooks.Example", `localhost:${new URL(server.url).port}`]) {
      const answer = await request(server.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, { host });
      expect(answer.status, host).toBe(200);
      const lines = (answer.body.message as string).split("\n");
      expect(lines[0]).toBe("spooks.example wants you to sign in with your Dogecoin account:");
      expect(lines[5]).toBe("URI: https://spooks.example");
    }
    const foreign = await request(server.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, { host: "evil.example" });
    expect(foreign).toMatchObject({ status: 421, body: { message: "This site answers only as spooks.example (PUBLIC_URL)" } });
  });
});

describe("one public origin for sign-in", () => {
  it("refuses the Host relay: a challenge asked for under another served name does not sign in here", async () => {
    const relayed = await request(ctx.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, { host: "localhost:1" });
    expect(relayed.status).toBe(200);
    expect(relayed.body.message).toMatch(/^localhost:1 wants you to sign in/); // development: the request's origin
    const sessions = await count("sessions");
    const posted = await ctx.call("POST", "/api/auth/session", {
      address: ctx.admin.address,
      message: relayed.body.message,
      signature: ctx.admin.sign(relayed.body.message),
    });
    expect(posted.status).toBe(401);
    expect(posted.body.message).toMatch(/is for localhost:1, not this site/);
    expect(posted.headers.getSetCookie()).toEqual([]);
    expect(await count("sessions")).toBe(sessions);
  });

  it("refuses (401, nothing stored) a signed challenge whose domain, URI, nonce, address or times differ from the one issued", async () => {
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${ctx.admin.address}`);
    const issued = challenge.body.message as string;
    const site = new URL(ctx.url);
    const nonce = /Nonce: (\w+)/.exec(issued)![1];
    const issuedAt = new Date(/Issued At: (.+)/.exec(issued)![1]);
    const expires = new Date(/Expiration Time: (.+)/.exec(issued)![1]);
    const variant = (fields: Partial<Parameters<typeof signInMessage>[0]>) =>
      signInMessage({
        domain: site.host,
        address: ctx.admin.address,
        statement: SIGN_IN_STATEMENT,
        uri: site.origin,
        nonce,
        issuedAt,
        expirationTime: expires,
        ...fields,
      });
    expect(variant({})).toBe(issued); // the variants below differ from the issued text in one field each
    const foreign = [
      variant({ domain: "evil.example" }),
      variant({ uri: "http://evil.example" }),
      variant({ domain: "evil.example", uri: "http://evil.example" }),
      variant({ nonce: "AAAAAAAAAAAAAAAAAAAAAAAA" }),
      variant({ issuedAt: new Date(issuedAt.getTime() - 1000) }),
      variant({ expirationTime: new Date(expires.getTime() + 60 * 60_000) }),
    ];
    const sessions = await count("sessions");
    for (const message of foreign) {
      const answer = await ctx.call("POST", "/api/auth/session", {
        address: ctx.admin.address,
        message,
        signature: ctx.admin.sign(message),
      });
      expect(answer.status, message).toBe(401);
      expect(answer.body.message).toEqual(expect.any(String));
    }
    // Signed by the admin for another address: refused too.
    const other = newWallet();
    const forOther = issued.replace(ctx.admin.address, other.address);
    expect(
      (await ctx.call("POST", "/api/auth/session", { address: other.address, message: forOther, signature: other.sign(forOther) })).status,
    ).toBe(403);
    expect(await count("sessions")).toBe(sessions);
    // The real challenge was left unused by the refusals, and still signs in.
    expect(
      (await ctx.call("POST", "/api/auth/session", { address: ctx.admin.address, message: issued, signature: ctx.admin.sign(issued) }))
        .status,
    ).toBe(200);
  });
});

describe("session cookie", () => {
  const FLAGS = /; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/;

  it("over http (PUBLIC_URL http://…): HttpOnly, SameSite=Strict, Path=/, not Secure, no prefix", async () => {
    const server = await serverWith({ PUBLIC_URL: "http://spooks.test" });
    const { setCookie, session } = await signInOn(server.url, ctx.admin, { origin: "http://spooks.test" });
    expect(session.status).toBe(200);
    expect(setCookie).toMatch(/^spooks_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  });

  it("over https (PUBLIC_URL https://…): Secure and the __Host- prefix; only the prefixed cookie counts", async () => {
    const server = await serverWith({ PUBLIC_URL: "https://spooks.example", SESSION_TTL_HOURS: "0.5" });
    const { setCookie, session } = await signInOn(server.url, ctx.admin, { origin: "https://spooks.example" });
    expect(session.status).toBe(200);
    expect(setCookie).toMatch(/^__Host-spooks_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=1800; Secure$/);
    const token = setCookie.split(";")[0].split("=")[1];
    const users = (cookie: string) => request(server.url, "GET", "/api/admin/users", { cookie });
    expect((await users(`__Host-spooks_session=${token}`)).status).toBe(200);
    expect((await users(`spooks_session=${token}`)).status).toBe(401); // a plain-named cookie could be planted over http
    // The session lasts SESSION_TTL_HOURS, and sign-out revokes it in the database.
    const [row] = await ctx.sql<{ minutes: number }[]>`
      select round(extract(epoch from expires_at - created_at) / 60)::int as minutes from sessions order by created_at desc limit 1`;
    expect(row.minutes).toBe(30);
    const out = await request(server.url, "DELETE", "/api/auth/session", {
      cookie: `__Host-spooks_session=${token}`,
      origin: "https://spooks.example",
      ...json,
    });
    expect(out.status).toBe(200);
    expect(([] as string[]).concat(out.headers["set-cookie"] ?? [])[0]).toMatch(
      /^__Host-spooks_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/,
    );
    expect((await users(`__Host-spooks_session=${token}`)).status).toBe(401);
  });

  it("through a trusted TLS proxy (TRUST_PROXY, no PUBLIC_URL): Secure and __Host-; an untrusted one's headers are ignored", async () => {
    // Without PUBLIC_URL only loopback names are served, so the proxy forwards one (its own port, https).
    const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "localhost:8443", "x-forwarded-for": "203.0.113.9" };
    const trusting = await serverWith({ TRUST_PROXY: "loopback" });
    const behindProxy = await signInOn(trusting.url, ctx.admin, forwarded);
    expect(behindProxy.message.split("\n")[0]).toBe("localhost:8443 wants you to sign in with your Dogecoin account:");
    expect(behindProxy.message).toContain("\nURI: https://localhost:8443\n");
    expect(behindProxy.session.status).toBe(200);
    expect(behindProxy.setCookie).toMatch(new RegExp(`^__Host-spooks_session=[\\w-]{40,}${FLAGS.source}; Secure$`));
    expect((await request(trusting.url, "GET", "/", forwarded)).headers["strict-transport-security"]).toBe("max-age=31536000");

    // The default test server trusts no proxy: the same headers change nothing.
    const direct = await request(ctx.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`, forwarded);
    expect(direct.body.message.split("\n")[0]).toBe(`${new URL(ctx.url).host} wants you to sign in with your Dogecoin account:`);
    expect((await request(ctx.url, "GET", "/", forwarded)).headers["strict-transport-security"]).toBeUndefined();
  });
});

describe("cross-site requests on cookie-authorized routes", () => {
  it("refuses text/plain (415), a foreign Origin (403) and a foreign Referer (403) with nothing changed; accepts same-origin", async () => {
    const cookie = await ctx.adminCookie();
    const holder = newWallet();
    const body = JSON.stringify({ address: holder.address, amount: 5, description: "csrf" });
    const post = (headers: Record<string, string>) => request(ctx.url, "POST", "/api/add-permanent-points", { cookie, ...headers }, body);
    const site = new URL(ctx.url).origin;

    const plain = await post({ origin: site, "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    expect(plain.body.message).toMatch(/application\/json/);
    const foreignOrigin = await post({ origin: "https://evil.example", ...json });
    expect(foreignOrigin.status).toBe(403);
    expect(foreignOrigin.body.message).toMatch(/Cross-site request refused/);
    const foreignReferer = await post({ referer: "https://evil.example/page", ...json });
    expect(foreignReferer.status).toBe(403);
    const neither = await post({ ...json });
    expect(neither.status).toBe(403);
    const nullOrigin = await post({ origin: "null", ...json });
    expect(nullOrigin.status).toBe(403);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);
    expect(await ctx.sql`select 1 from audit_log where target = ${holder.address}`).toHaveLength(0);

    expect((await post({ origin: site, ...json })).status).toBe(200);
    expect((await post({ referer: `${site}/admin`, "content-type": "application/json; charset=utf-8" })).status).toBe(200);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(10 * 2400);
  });

  it("the same for the other cookie routes: JSON for changes, multipart for the upload, a form for /admin's actions", async () => {
    const cookie = await ctx.adminCookie();
    const site = new URL(ctx.url).origin;
    const proposals = await count("sessions");
    expect(
      (
        await request(
          ctx.url,
          "POST",
          "/api/admin/recalculate-points",
          { cookie, origin: site, "content-type": "application/x-www-form-urlencoded" },
          "",
        )
      ).status,
    ).toBe(415);
    expect((await request(ctx.url, "DELETE", "/api/auth/session", { cookie, origin: "https://evil.example", ...json })).status).toBe(403);
    expect(await count("sessions")).toBe(proposals);
    expect((await ctx.call("GET", "/api/auth/session", undefined, { cookie })).body.isAdmin).toBe(true); // not signed out
    // The upload takes multipart only.
    expect((await request(ctx.url, "POST", "/api/upload-image", { cookie, origin: site, ...json }, { image: "x" })).status).toBe(415);
    const form = new FormData();
    form.append("image", new Blob([Buffer.from("89504e470d0a1a0a", "hex")], { type: "image/png" }), "a.png");
    expect((await ctx.call("POST", "/api/upload-image", undefined, { raw: form, cookie, origin: "https://evil.example" })).status).toBe(
      403,
    );
    // /admin's form actions: a foreign Referer (no Origin) is refused by our check, a foreign Origin already
    // by React Router's; a JSON body is not a form.
    const holder = newWallet();
    const addPoints = `intent=add-points&address=${holder.address}&amount=5&description=x`;
    const formType = { "content-type": "application/x-www-form-urlencoded" };
    expect(
      (await request(ctx.url, "POST", "/admin.data", { cookie, referer: "https://evil.example/", ...formType }, addPoints)).status,
    ).toBe(403);
    expect(
      (await request(ctx.url, "POST", "/admin.data", { cookie, origin: "https://evil.example", ...formType }, addPoints)).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await request(ctx.url, "POST", "/admin.data", { cookie, origin: site, "content-type": "text/plain" }, addPoints)).status).toBe(
      415,
    );
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(0);
    expect((await request(ctx.url, "POST", "/admin.data", { cookie, origin: site, ...formType }, addPoints)).status).toBe(200);
    expect(await balanceUnits(ctx.sql, holder.address)).toBe(5 * 2400);
  });
});

describe("headers on every response", () => {
  function expectCommonHeaders(headers: http.IncomingHttpHeaders, what: string) {
    const csp = String(headers["content-security-policy"]);
    const directives = new Map(
      csp.split(";").map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get("default-src"), what).toEqual(["'self'"]);
    const scripts = directives.get("script-src") ?? [];
    expect(scripts[0], what).toBe("'self'");
    expect(scripts[1], what).toMatch(/^'nonce-[A-Za-z0-9+/=]{24}'$/);
    expect(scripts.join(" "), what).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(directives.get("frame-ancestors"), what).toEqual(["'none'"]);
    expect(directives.get("object-src"), what).toEqual(["'none'"]);
    expect(directives.get("base-uri"), what).toEqual(["'self'"]);
    expect(directives.get("img-src"), what).toEqual([
      "'self'",
      "data:",
      "https://cdn.example",
      "https://inscriptions.example:8443",
      "https://images.example",
    ]);
    expect(headers["x-content-type-options"], what).toBe("nosniff");
    expect(headers["referrer-policy"], what).toBe("strict-origin-when-cross-origin");
    expect(headers["x-frame-options"], what).toBe("DENY");
    expect(headers["strict-transport-security"], what).toBe("max-age=31536000");
    expect(headers["server-timing"], what).toBeUndefined();
    expect(headers["x-powered-by"], what).toBeUndefined();
    return scripts[1].slice("'nonce-".length, -1);
  }

  it("a page, an API answer, an upload, an asset: CSP, nosniff, Referrer-Policy, HSTS over https, no Server-Timing in production", async () => {
    const server = await serverWith({
      NODE_ENV: "production",
      PUBLIC_URL: "https://spooks.example",
      IMAGE_HOSTS: "https://images.example/",
      ITEM_IMAGE_URLS: "https://cdn.example/content/{id},https://inscriptions.example:8443/i/{id}/content,https://cdn.example/x/{id}",
    });
    const page = await request(server.url, "GET", "/");
    expect(page.status).toBe(200);
    const nonce = expectCommonHeaders(page.headers, "page");
    // Every inline script of the page carries this response's nonce; none runs without it.
    const inline = [...page.text.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((match) => match[1]);
    expect(inline.length).toBeGreaterThan(0);
    for (const attributes of inline) expect(attributes).toContain(`nonce="${nonce}"`);
    expect((await request(server.url, "GET", "/")).headers["content-security-policy"]).not.toContain(nonce); // fresh per request

    const api = await request(server.url, "GET", "/api/leaderboard");
    expect(api.status).toBe(200);
    expectCommonHeaders(api.headers, "api");
    expect(api.headers["cache-control"]).toBe("no-store");

    const uploadName = "headers-check.png";
    const { default: fs } = await import("node:fs");
    fs.mkdirSync(server.context.config.uploadDir, { recursive: true });
    fs.writeFileSync(`${server.context.config.uploadDir}/${uploadName}`, Buffer.from("89504e470d0a1a0a", "hex"));
    const upload = await request(server.url, "GET", `/uploads/${uploadName}`);
    expect(upload.status).toBe(200);
    expectCommonHeaders(upload.headers, "upload");

    const asset = /<script[^>]*\bsrc="(\/assets\/[^"]+)"|<link[^>]*href="(\/assets\/[^"]+\.js)"/.exec(page.text);
    const assetAnswer = await request(server.url, "GET", asset![1] ?? asset![2]);
    expect(assetAnswer.status).toBe(200);
    expectCommonHeaders(assetAnswer.headers, "asset");
  });

  it("no-store on /admin (page and data), admin API answers and sign-in answers; Server-Timing outside production only", async () => {
    const cookie = await ctx.adminCookie();
    for (const path of ["/admin", "/admin.data"]) {
      const answer = await request(ctx.url, "GET", path, { cookie });
      expect(answer.status, path).toBe(200);
      expect(answer.headers["cache-control"], path).toBe("no-store");
    }
    const users = await ctx.call("GET", "/api/admin/users", undefined, { cookie });
    expect(users.headers.get("cache-control")).toBe("no-store");
    const challenge = await ctx.call("GET", `/api/auth/challenge?address=${ctx.admin.address}`);
    expect(challenge.headers.get("cache-control")).toBe("no-store");
    expect(challenge.headers.get("server-timing")).toMatch(/^app;dur=/); // NODE_ENV=test
    expect(challenge.headers.get("strict-transport-security")).toBeNull(); // plain http
  });

  it("answers a malformed Host with 400 and a message, not 500", async () => {
    const answer = await request(ctx.url, "GET", "/", { host: "evil.example/path@x" });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/Host/);
  });
});

describe("abuse limits per client IP", () => {
  const WINDOW_MS = 1500;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("sign-in: beyond RATE_LIMIT_SIGNIN_PER_MIN → 429 with Retry-After and a message, nothing stored; resets", async () => {
    const server = await serverWith({ RATE_LIMIT_SIGNIN_PER_MIN: "3" }, WINDOW_MS);
    const challenge = () => request(server.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`);
    for (let i = 0; i < 3; i++) expect((await challenge()).status).toBe(200);
    const before = await count("auth_challenges");
    const limited = await challenge();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(limited.body.message).toMatch(/Too many sign-in requests/);
    expect(limited.headers["cache-control"]).toBe("no-store");
    // The sign-in POST shares the limit; the who-am-I GET does not count.
    expect((await request(server.url, "POST", "/api/auth/session", { origin: new URL(server.url).origin, ...json }, {})).status).toBe(429);
    expect((await request(server.url, "GET", "/api/auth/session")).status).toBe(200);
    expect((await request(server.url, "GET", `/api/auth/challenge.data?address=${ctx.admin.address}`)).status).toBe(429);
    expect(await count("auth_challenges")).toBe(before);
    await sleep(Number(limited.headers["retry-after"]) * 1000);
    expect((await challenge()).status).toBe(200);
  });

  it("signed routes: beyond RATE_LIMIT_SIGNED_PER_MIN → 429 across stake, bulk, entry and vote; per client IP behind a trusted proxy", async () => {
    const server = await serverWith({ RATE_LIMIT_SIGNED_PER_MIN: "4", TRUST_PROXY: "loopback" }, WINDOW_MS);
    const from = (ip: string) => ({ "x-forwarded-for": ip, ...json });
    const paths = ["/api/stake", "/api/unstake/bulk", "/api/giveaways/enter", "/api/proposals/1/vote"];
    for (const path of paths) expect((await request(server.url, "POST", path, from("198.51.100.1"), {})).status).toBe(400);
    const limited = await request(server.url, "POST", "/api/stake/bulk", from("198.51.100.1"), {});
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
    expect(limited.body.message).toMatch(/Too many signed requests/);
    // Another client (as the trusted proxy reports it) has its own count.
    expect((await request(server.url, "POST", "/api/stake", from("198.51.100.2"), {})).status).toBe(400);
    await sleep(Number(limited.headers["retry-after"]) * 1000);
    expect((await request(server.url, "POST", "/api/stake", from("198.51.100.1"), {})).status).toBe(400);
  });

  it("an untrusted X-Forwarded-For does not buy a fresh count; 0 turns a limit off", async () => {
    const server = await serverWith({ RATE_LIMIT_SIGNED_PER_MIN: "2", RATE_LIMIT_SIGNIN_PER_MIN: "0" }, 60_000);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await request(server.url, "POST", "/api/stake", { "x-forwarded-for": `198.51.100.${i}`, ...json }, {})).status);
    expect(statuses).toEqual([400, 400, 429]);
    for (let i = 0; i < 40; i++)
      expect((await request(server.url, "GET", `/api/auth/challenge?address=${ctx.admin.address}`)).status).toBe(200);
  });
});

describe("bulk routes check the message and the signature before the database", () => {
  it("a forged bulk stake naming unknown items is refused for its signature (401), not looked up (404)", async () => {
    const wallet = newWallet();
    const ids = Array.from({ length: 3 }, (_, i) => `${String(i).repeat(64)}i0`);
    const message = bulkStakeMessage("stake", ["Spooks #1", "Spooks #2", "Spooks #3"], new Date());
    const forged = await ctx.call("POST", "/api/stake/bulk", {
      address: wallet.address,
      inscriptionIds: ids,
      message,
      signature: newWallet().sign(message),
    });
    expect(forged.status).toBe(401);
    const genuine = await ctx.call("POST", "/api/stake/bulk", {
      address: wallet.address,
      inscriptionIds: ids,
      message,
      signature: wallet.sign(message),
    });
    expect(genuine.status).toBe(404); // only a valid signature reaches the item lookup
  });
});

describe("clean-up of dead sign-in rows", () => {
  it("deletes expired challenges and sessions in bounded, indexed batches", async () => {
    const indexes = await ctx.sql<{ indexname: string }[]>`
      select indexname from pg_indexes where tablename in ('auth_challenges', 'sessions') and indexdef like '%(expires_at)%' order by 1`;
    expect(indexes.map((row) => row.indexname)).toEqual(["auth_challenges_expires_at", "sessions_expires_at"]);

    await ctx.sql`
      insert into auth_challenges (nonce, address, message, issued_at, expires_at)
      select 'dead-' || g, 'D', 'm', now() - interval '2 hours', now() - interval '1 hour' from generate_series(1, 700) g`;
    await ctx.sql`
      insert into sessions (token_hash, address, created_at, expires_at)
      select encode(sha256(('dead-' || g)::bytea), 'hex'), 'D', now() - interval '2 days', now() - interval '1 day' from generate_series(1, 600) g`;
    const deadChallenges = async () => (await ctx.sql`select count(*)::int as n from auth_challenges where nonce like 'dead-%'`)[0].n;
    const deadSessions = async () => (await ctx.sql`select count(*)::int as n from sessions where address = 'D'`)[0].n;

    expect(await deleteExpiredAuthRows(ctx.sql, new Date(), 500)).toMatchObject({ challenges: 500, sessions: 500 });
    expect([await deadChallenges(), await deadSessions()]).toEqual([200, 100]);
    // Each challenge issued removes the next batch.
    expect((await ctx.call("GET", `/api/auth/challenge?address=${ctx.admin.address}`)).status).toBe(200);
    expect([await deadChallenges(), await deadSessions()]).toEqual([0, 0]);
  });
});
