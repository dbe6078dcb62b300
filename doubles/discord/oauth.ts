/**
 * The double's OAuth2 authorization-code grant (REAL-WORLD.md "OAuth2"): the authorize page, the token and
 * revoke endpoints (form-urlencoded only, the client by HTTP Basic or in the form), and the grants whose
 * Bearer tokens GET /users/@me reads. The texts of the refusals are Discord's own (see docs/decisions.md).
 */
import type http from "node:http";
import { decodeComponent, json, randomToken, type Answer, type UserRecord } from "./shapes.ts";

/** Authorization codes live 100 s on Discord (its staff, discord-api-docs#1768); access tokens 7 days. */
const CODE_LIFETIME_MS = 100_000;
const ACCESS_TOKEN_LIFETIME_S = 604_800;
const DENIED_DESCRIPTION = "The resource owner or authorization server denied the request";

type AppRecord = { clientId: string; clientSecret: string; redirectUris: string[] };
type CodeRecord = { clientId: string; userId: string; redirectUri: string; scope: string; expiresAt: number; used: boolean };
export type Grant = {
  clientId: string;
  userId: string;
  scope: string;
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string;
  revoked: boolean;
};

const oauthError = (status: number, error: string, description?: string) =>
  json(status, description === undefined ? { error } : { error, error_description: description });

/** `Basic base64(client_id:client_secret)` → its two parts (RFC 6749 §2.3.1: each form-urlencoded first). */
export function basicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const part = (text: string) => decodeComponent(text.replaceAll("+", " "));
  return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) };
}

/** The form of a token request: application/x-www-form-urlencoded only (a JSON body reads as no fields). */
export const formOf = (req: http.IncomingMessage, body: Buffer) =>
  (req.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
    ? new URLSearchParams(body.toString("utf8"))
    : new URLSearchParams();

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function page(title: string, inner: string, status = 200): Answer {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${inner}</body></html>`;
  return { status, body: html, contentType: "text/html; charset=utf-8" };
}

const redirect = (location: string): Answer => ({ status: 302, body: "", headers: { location } });

export function createOAuth({ users, nextId }: { users: ReadonlyMap<string, UserRecord>; nextId: () => string }) {
  const apps = new Map<string, AppRecord>();
  const codes = new Map<string, CodeRecord>();
  const grants: Grant[] = [];
  let loggedIn: string | null = null;
  let denials = 0;

  function clientOf(req: http.IncomingMessage, form: URLSearchParams): AppRecord | undefined {
    const basic = basicCredentials(req.headers.authorization);
    const clientId = basic?.clientId ?? form.get("client_id");
    const clientSecret = basic?.clientSecret ?? form.get("client_secret");
    if (basic && form.has("client_id") && form.get("client_id") !== basic.clientId) return undefined;
    const app = clientId ? apps.get(clientId) : undefined;
    return app && app.clientSecret === clientSecret ? app : undefined;
  }

  function issueGrant(clientId: string, userId: string, scope: string): Answer {
    const grant: Grant = {
      clientId,
      userId,
      scope,
      accessToken: randomToken(),
      accessExpiresAt: Date.now() + ACCESS_TOKEN_LIFETIME_S * 1000,
      refreshToken: randomToken(),
      revoked: false,
    };
    grants.push(grant);
    return json(200, {
      token_type: "Bearer",
      access_token: grant.accessToken,
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      refresh_token: grant.refreshToken,
      scope: grant.scope,
    });
  }

  function choosePage(url: URL): Answer {
    const action = escapeHtml(`${url.pathname}${url.search}`);
    const buttons = [...users.values()]
      .filter((user) => !user.bot)
      .map((user) => `<button name="user_id" value="${user.id}">Authorize as ${escapeHtml(user.username)}</button>`)
      .join("");
    return page(
      "Authorize access to your account",
      `<form method="post" action="${action}">${buttons}<button name="deny" value="1">Cancel</button></form>`,
    );
  }

  /** What is wrong with the authorize query, as Discord's page says it (never a redirect), or the app. */
  function checkAuthorizeQuery(query: URLSearchParams): { app: AppRecord; redirectUri: string; scope: string } | Answer {
    const app = apps.get(query.get("client_id") ?? "");
    if (!app) return page("Unknown Application", "<p>Invalid client_id.</p>", 400);
    const redirectUri = query.get("redirect_uri") ?? "";
    if (!app.redirectUris.includes(redirectUri)) return page("Invalid OAuth2 redirect_uri", "<p>Invalid OAuth2 redirect_uri.</p>", 400);
    if (query.get("response_type") !== "code") return page("Invalid response_type", "<p>Unsupported response_type.</p>", 400);
    const scope = (query.get("scope") ?? "").trim();
    if (scope === "" || !scope.split(/\s+/).every((s) => s === "identify")) return page("Invalid scope", "<p>Invalid scope.</p>", 400);
    const prompt = query.get("prompt");
    if (prompt !== null && prompt !== "consent" && prompt !== "none") return page("Invalid prompt", "<p>Invalid prompt.</p>", 400);
    return { app, redirectUri, scope };
  }

  return {
    /**
     * The authorize page: the query checked as Discord's page checks it; then a denial (when a test asked for
     * one, or Cancel), the logged-in user's approval, or, with nobody logged in, a page to choose a user (demo
     * mode: a newcomer clicks). `decision` is that page's form, posted back.
     */
    authorize(url: URL, decision?: URLSearchParams): Answer {
      const checked = checkAuthorizeQuery(url.searchParams);
      if ("status" in checked) return checked;
      const back = new URL(checked.redirectUri);
      const state = url.searchParams.get("state");
      const deny = decision ? decision.has("deny") : denials > 0;
      if (deny) {
        if (!decision) denials -= 1;
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", DENIED_DESCRIPTION);
      } else {
        const userId = decision?.get("user_id") ?? loggedIn;
        const user = userId === null ? undefined : users.get(userId);
        if (!user || user.bot) return choosePage(url);
        const code = randomToken();
        const { app, redirectUri, scope } = checked;
        codes.set(code, {
          clientId: app.clientId,
          userId: user.id,
          redirectUri,
          scope,
          expiresAt: Date.now() + CODE_LIFETIME_MS,
          used: false,
        });
        back.searchParams.set("code", code);
      }
      if (state !== null) back.searchParams.set("state", state);
      return redirect(back.toString());
    },

    token(req: http.IncomingMessage, body: Buffer): Answer {
      const form = formOf(req, body);
      const grantType = form.get("grant_type");
      if (grantType !== "authorization_code" && grantType !== "refresh_token") {
        return oauthError(400, "unsupported_grant_type", `Grant type ${grantType ?? "None"} is not supported`);
      }
      const app = clientOf(req, form);
      if (!app) return oauthError(401, "invalid_client");
      if (grantType === "refresh_token") {
        const grant = grants.find((g) => g.refreshToken === form.get("refresh_token") && g.clientId === app.clientId && !g.revoked);
        if (!grant) return oauthError(400, "invalid_grant", 'Invalid "refresh_token" in request.');
        grant.revoked = true;
        return issueGrant(app.clientId, grant.userId, grant.scope);
      }
      const code = codes.get(form.get("code") ?? "");
      if (!code || code.used || code.expiresAt <= Date.now() || code.clientId !== app.clientId) {
        return oauthError(400, "invalid_grant", 'Invalid "code" in request.');
      }
      if (form.get("redirect_uri") !== code.redirectUri) return oauthError(400, "invalid_grant", 'Invalid "redirect_uri" in request.');
      code.used = true;
      return issueGrant(app.clientId, code.userId, code.scope);
    },

    revoke(req: http.IncomingMessage, body: Buffer): Answer {
      const form = formOf(req, body);
      const app = clientOf(req, form);
      if (!app) return oauthError(401, "invalid_client");
      const token = form.get("token");
      if (!token) return oauthError(400, "invalid_request", 'Missing "token" in request.');
      for (const grant of grants) {
        if (grant.clientId === app.clientId && (grant.accessToken === token || grant.refreshToken === token)) grant.revoked = true;
      }
      return json(200, {});
    },

    /** The user a live Bearer access token stands for. */
    userOfAccessToken(token: string): UserRecord | undefined {
      const grant = grants.find((g) => g.accessToken === token && !g.revoked && g.accessExpiresAt > Date.now());
      return grant ? users.get(grant.userId) : undefined;
    },

    registerApp({ clientId, clientSecret, redirectUris }: { clientId?: string; clientSecret?: string; redirectUris: string[] }) {
      const app = { clientId: clientId ?? nextId(), clientSecret: clientSecret ?? randomToken(32), redirectUris: [...redirectUris] };
      apps.set(app.clientId, app);
      return { clientId: app.clientId, clientSecret: app.clientSecret };
    },
    logIn(userId: string | null) {
      if (userId !== null && !users.has(userId)) throw new Error(`no user ${userId}`);
      loggedIn = userId;
    },
    denyAuthorizations: (times = 1) => void (denials += times),
    expireCodes() {
      for (const code of codes.values()) code.expiresAt = Math.min(code.expiresAt, Date.now());
    },
    expireAccessTokens() {
      for (const grant of grants) grant.accessExpiresAt = Math.min(grant.accessExpiresAt, Date.now());
    },
  };
}
