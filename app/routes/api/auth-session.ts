/**
 * GET /api/auth/session: who is signed in; POST `{ address, message, signature }`: sign in with a signed
 * challenge (HTTP-only SameSite=Strict cookie, `__Host-` and Secure over https); DELETE: sign out (the
 * session is revoked). POST and DELETE pass the cross-site check first.
 */
import { apiMethods, apiRoute, json, readJson } from "../../utils/api.server.ts";
import { signInBodySchema } from "../../utils/api-schemas.server.ts";
import { sessionAddress, signIn, signOut } from "../../utils/auth.server.ts";
import { requireSameSiteRequest } from "../../utils/csrf.server.ts";
import type { Route } from "./+types/auth-session";

export const loader = apiRoute<Route.LoaderArgs>(async ({ request, context }) => {
  const address = await sessionAddress(request, context);
  return { address, isAdmin: address !== null && address === context.config.adminAddress };
});

export const action = apiMethods<Route.ActionArgs>({
  POST: async ({ request, context }) => {
    requireSameSiteRequest(request, context, "json");
    const body = await readJson(request, signInBodySchema);
    const { setCookie, ...session } = await signIn(request, context, body);
    return json(session, 200, { "Set-Cookie": setCookie });
  },
  DELETE: async ({ request, context }) => json({ success: true }, 200, { "Set-Cookie": await signOut(request, context) }),
});
