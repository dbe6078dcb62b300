/**
 * The Discord double's OAuth2 authorization-code grant, called with plain fetch exactly as the product will call
 * it (REAL-WORLD.md "OAuth2"): the authorize redirect, the token exchange (form-urlencoded, HTTP Basic client
 * auth), GET /users/@me with the Bearer token, refresh and revoke, and every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDiscordDouble, type DiscordDouble } from "./discord-double.server.ts";

const REDIRECT_URI = "http://localhost:3000/discord/callback";

let discord: DiscordDouble;
let app: { clientId: string; clientSecret: string };
let ghost: { id: string; username: string };

const basic = (clientId: string, clientSecret: string) => `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`;

function authorizeUrl(params: Record<string, string> = {}) {
  const url = new URL(discord.authorizeUrl);
  const query = {
    response_type: "code",
    client_id: app.clientId,
    scope: "identify",
    state: "state-123",
    redirect_uri: REDIRECT_URI,
    ...params,
  };
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url;
}

/** Follows nothing: the authorize answer's redirect, read as a URL. */
async function authorize(params: Record<string, string> = {}) {
  const answer = await fetch(authorizeUrl(params), { redirect: "manual" });
  const location = answer.headers.get("location");
  return { status: answer.status, location: location ? new URL(location) : null, text: await answer.text() };
}

async function codeFor(userId: string) {
  discord.logIn(userId);
  const { location } = await authorize();
  return location!.searchParams.get("code")!;
}

/** The token call as the product makes it: form-urlencoded body, the client in HTTP Basic. */
function exchange(fields: Record<string, string>, { auth = basic(app.clientId, app.clientSecret) }: { auth?: string | null } = {}) {
  return fetch(`${discord.apiUrl}/v10/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(auth ? { authorization: auth } : {}) },
    body: new URLSearchParams(fields),
  });
}

const me = (accessToken: string) => fetch(`${discord.apiUrl}/v10/users/@me`, { headers: { authorization: `Bearer ${accessToken}` } });

beforeAll(async () => {
  discord = await startDiscordDouble();
  app = discord.registerApp({ redirectUris: [REDIRECT_URI] });
  ghost = discord.createUser({ username: "ghostly", globalName: "Ghostly" });
});
afterAll(() => discord.close());

describe("authorize", () => {
  it("redirects to redirect_uri with a single code and the state, for the user logged in", async () => {
    discord.logIn(ghost.id);
    const { status, location } = await authorize({ prompt: "consent" });
    expect(status).toBe(302);
    expect(`${location!.origin}${location!.pathname}`).toBe(REDIRECT_URI);
    expect(location!.searchParams.get("state")).toBe("state-123");
    expect(location!.searchParams.get("code")).toMatch(/^[A-Za-z0-9]{30}$/);
  });

  it("serves the same page under /api and /api/v10", async () => {
    discord.logIn(ghost.id);
    for (const prefix of ["/api", "/api/v10"]) {
      const url = authorizeUrl();
      url.pathname = `${prefix}/oauth2/authorize`;
      expect((await fetch(url, { redirect: "manual" })).status).toBe(302);
    }
  });

  it("redirects a denial with error=access_denied, Discord's description and the state", async () => {
    discord.logIn(ghost.id);
    discord.denyAuthorizations();
    const { status, location } = await authorize();
    expect(status).toBe(302);
    expect(Object.fromEntries(location!.searchParams)).toEqual({
      error: "access_denied",
      error_description: "The resource owner or authorization server denied the request",
      state: "state-123",
    });
    expect((await authorize()).location!.searchParams.has("code")).toBe(true); // one denial only
  });

  it("never redirects for an unknown client_id, an unregistered redirect_uri, another response_type or scope", async () => {
    discord.logIn(ghost.id);
    const refused: Record<string, string>[] = [
      { client_id: "1234567890123456789" },
      { redirect_uri: "http://localhost:3000/elsewhere" },
      { redirect_uri: `${REDIRECT_URI}/` },
      { response_type: "token" },
      { scope: "identify guilds.join" },
      { prompt: "always" },
    ];
    for (const params of refused) {
      const { status, location } = await authorize(params);
      expect([params, status, location]).toEqual([params, 400, null]);
    }
  });

  it("asks whom to authorize as when nobody is logged in, and the choice (or Cancel) redirects", async () => {
    discord.logIn(null);
    const page = await authorize();
    expect(page.status).toBe(200);
    expect(page.text).toContain(`value="${ghost.id}"`);
    const choose = (field: string) =>
      fetch(authorizeUrl(), {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: field,
      });
    const approved = new URL((await choose(`user_id=${ghost.id}`)).headers.get("location")!);
    expect(approved.searchParams.get("code")).toMatch(/^[A-Za-z0-9]{30}$/);
    const cancelled = new URL((await choose("deny=1")).headers.get("location")!);
    expect(cancelled.searchParams.get("error")).toBe("access_denied");
  });
});

describe("token", () => {
  it("exchanges a code (form-urlencoded, HTTP Basic) for a Bearer token that reads the user", async () => {
    const answer = await exchange({ grant_type: "authorization_code", code: await codeFor(ghost.id), redirect_uri: REDIRECT_URI });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const token = await answer.json();
    expect(token).toEqual({
      token_type: "Bearer",
      access_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      expires_in: 604800,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      scope: "identify",
    });
    const user = await (await me(token.access_token)).json();
    expect(user).toMatchObject({ id: ghost.id, username: "ghostly", discriminator: "0", global_name: "Ghostly", avatar: null });
    expect(user.id).toMatch(/^\d{17,19}$/);
  });

  it("takes the client id and secret in the form as well", async () => {
    const code = await codeFor(ghost.id);
    const answer = await exchange(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: app.clientId, client_secret: app.clientSecret },
      { auth: null },
    );
    expect(answer.status).toBe(200);
  });

  it("refuses a reused, unknown or expired code and a wrong redirect_uri: 400 invalid_grant", async () => {
    const code = await codeFor(ghost.id);
    const fields = { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI };
    const wrongRedirect = await exchange({ ...fields, redirect_uri: "http://localhost:3000/other" });
    expect([wrongRedirect.status, await wrongRedirect.json()]).toEqual([
      400,
      { error: "invalid_grant", error_description: 'Invalid "redirect_uri" in request.' },
    ]);
    expect((await exchange(fields)).status).toBe(200);
    const invalidCode = { error: "invalid_grant", error_description: 'Invalid "code" in request.' };
    const reused = await exchange(fields);
    expect([reused.status, await reused.json()]).toEqual([400, invalidCode]);
    const unknown = await exchange({ ...fields, code: "x".repeat(30) });
    expect([unknown.status, await unknown.json()]).toEqual([400, invalidCode]);
    const stale = await codeFor(ghost.id);
    discord.expireCodes();
    const expired = await exchange({ ...fields, code: stale });
    expect([expired.status, await expired.json()]).toEqual([400, invalidCode]);
  });

  it("refuses a JSON body (form-urlencoded only) and a wrong client secret", async () => {
    const code = await codeFor(ghost.id);
    const asJson = await fetch(`${discord.apiUrl}/v10/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basic(app.clientId, app.clientSecret) },
      body: JSON.stringify({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI }),
    });
    expect([asJson.status, await asJson.json()]).toEqual([
      400,
      { error: "unsupported_grant_type", error_description: "Grant type None is not supported" },
    ]);
    const wrongSecret = await exchange(
      { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI },
      { auth: basic(app.clientId, "not-the-secret") },
    );
    expect([wrongSecret.status, await wrongSecret.json()]).toEqual([401, { error: "invalid_client" }]);
    // Neither refusal used the code up.
    expect((await exchange({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI })).status).toBe(200);
  });

  it("refreshes a grant once (the old refresh token is refused after), and a revoked token reads nothing", async () => {
    const first = await (
      await exchange({ grant_type: "authorization_code", code: await codeFor(ghost.id), redirect_uri: REDIRECT_URI })
    ).json();
    const refreshed = await exchange({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    const second = await refreshed.json();
    expect(second).toMatchObject({ token_type: "Bearer", expires_in: 604800, scope: "identify" });
    expect(second.access_token).not.toBe(first.access_token);
    const again = await exchange({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect([again.status, await again.json()]).toEqual([
      400,
      { error: "invalid_grant", error_description: 'Invalid "refresh_token" in request.' },
    ]);

    expect((await me(second.access_token)).status).toBe(200);
    const revoked = await fetch(`${discord.apiUrl}/v10/oauth2/token/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(app.clientId, app.clientSecret) },
      body: new URLSearchParams({ token: second.access_token, token_type_hint: "access_token" }),
    });
    expect(revoked.status).toBe(200);
    const after = await me(second.access_token);
    expect([after.status, await after.json()]).toEqual([401, { message: "401: Unauthorized", code: 0 }]);
  });

  it("answers an expired access token, a missing one and a Bearer token on a guild route 401", async () => {
    const token = await (
      await exchange({ grant_type: "authorization_code", code: await codeFor(ghost.id), redirect_uri: REDIRECT_URI })
    ).json();
    const guild = discord.createGuild({ botRole: { position: 1 } });
    const guildRead = await fetch(`${discord.apiUrl}/v10/guilds/${guild.id}/roles`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(guildRead.status).toBe(401);
    discord.expireAccessTokens();
    expect((await me(token.access_token)).status).toBe(401);
    expect((await fetch(`${discord.apiUrl}/v10/users/@me`)).status).toBe(401);
  });
});
