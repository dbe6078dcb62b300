/** The Discord routes the double serves, the rate-limit bucket of each, and how a path finds its route. */
import type { Bucket } from "./rate-limits.ts";
import { decodeComponent } from "./shapes.ts";

export const ROUTES = [
  "POST /oauth2/token",
  "POST /oauth2/token/revoke",
  "GET /users/@me",
  "GET /guilds/{guild}/roles",
  "GET /guilds/{guild}/members/{user}",
  "GET /guilds/{guild}/members",
  "PUT /guilds/{guild}/members/{user}/roles/{role}",
  "DELETE /guilds/{guild}/members/{user}/roles/{role}",
  "POST /webhooks/{webhook}/{token}",
  "PUT /applications/{application}/guilds/{guild}/commands",
  "GET /applications/{application}/guilds/{guild}/commands",
  "PATCH /webhooks/{webhook}/{token}/messages/{message}",
] as const;
export type DiscordRoute = (typeof ROUTES)[number];

export const BUCKET_OF: Record<DiscordRoute, Bucket> = {
  "POST /oauth2/token": "oauth2-token",
  "POST /oauth2/token/revoke": "oauth2-revoke",
  "GET /users/@me": "users-me",
  "GET /guilds/{guild}/roles": "guild-roles",
  "GET /guilds/{guild}/members/{user}": "guild-member",
  "GET /guilds/{guild}/members": "guild-members",
  // Adding and removing a member's role share one bucket, as on Discord: one X-RateLimit-Bucket for both.
  "PUT /guilds/{guild}/members/{user}/roles/{role}": "member-roles",
  "DELETE /guilds/{guild}/members/{user}/roles/{role}": "member-roles",
  "POST /webhooks/{webhook}/{token}": "webhook",
  "PUT /applications/{application}/guilds/{guild}/commands": "guild-commands",
  "GET /applications/{application}/guilds/{guild}/commands": "guild-commands",
  // An interaction's webhook: "Interactions webhooks share the same rate limit properties as normal webhooks".
  "PATCH /webhooks/{webhook}/{token}/messages/{message}": "interaction-webhook",
};

export type Matched = { route: DiscordRoute; params: Record<string, string> };

/** Matches `/guilds/123/roles` against the route templates; a known path with another method is a 405. */
export function matchRoute(method: string, path: string): Matched | "method-not-allowed" | undefined {
  const segments = path.split("/").slice(1);
  let pathKnown = false;
  for (const route of ROUTES) {
    const [routeMethod, template] = route.split(" ");
    const parts = template.split("/").slice(1);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = parts.every((part, i) => {
      if (!part.startsWith("{")) return part === segments[i];
      params[part.slice(1, -1)] = decodeComponent(segments[i]);
      return segments[i] !== "";
    });
    if (!fits) continue;
    if (routeMethod === method) return { route, params };
    pathKnown = true;
  }
  return pathKnown ? "method-not-allowed" : undefined;
}
