/**
 * GET /api/auth/session: who is signed in; POST `{ address, message, signature }`: sign in with a signed
 * challenge (HTTP-only SameSite=Strict cookie, `__Host-` and Secure over https); DELETE: sign out (the
 * session is revoked). POST and DELETE pass the cross-site check first.
 */
import { getSession, signIn as signInRoute, signOut as signOutRoute } from "../../api/auth.ts";
import { answer, apiMethods, apiRoute, endpoint } from "../../utils/api.server.ts";
import { sessionMember, signIn, signOut } from "../../utils/auth.server.ts";
import { requireSameSiteRequest } from "../../utils/csrf.server.ts";
import type { Route } from "./+types/auth-session";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(getSession, async ({ request, context }) => {
    const member = await sessionMember(request, context);
    return { address: member?.address ?? null, isAdmin: Boolean(member?.role), role: member?.role ?? null };
  }),
);

const signInWithChallenge = endpoint(signInRoute, async ({ request, context, body }) => {
  const { setCookie, ...session } = await signIn(request, context, body);
  return answer(signInRoute, 200, session, { "Set-Cookie": setCookie });
});

export const action = apiMethods<Route.ActionArgs>({
  // The cross-site check comes before the body is read: a foreign page learns nothing from how it would be judged.
  POST: (args) => {
    requireSameSiteRequest(args.request, args.context, "json");
    return signInWithChallenge(args);
  },
  // signOut runs the cross-site check itself, before it revokes anything.
  DELETE: endpoint(signOutRoute, async ({ request, context }) => {
    const clearCookie = await signOut(request, context);
    return answer(signOutRoute, 200, { success: true }, { "Set-Cookie": clearCookie });
  }),
});
