/** GET /api/auth/challenge?address=: a one-time sign-in message (SIWE layout, "Dogecoin"), valid 10 minutes. */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { createChallenge } from "../../utils/auth.server.ts";
import type { Route } from "./+types/auth-challenge";

export const loader = apiRoute<Route.LoaderArgs>(({ request, context }) => {
  const address = addressParam(new URL(request.url).searchParams.get("address") ?? undefined);
  return createChallenge(request, context, address);
});

export const action = onlyMethods("GET");
