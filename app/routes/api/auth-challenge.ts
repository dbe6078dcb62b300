/** GET /api/auth/challenge?address=: a one-time sign-in message (SIWE layout, "Dogecoin"), valid 10 minutes. */
import { authChallenge } from "../../api/auth.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { createChallenge } from "../../utils/auth.server.ts";
import type { Route } from "./+types/auth-challenge";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(authChallenge, ({ query, request, context }) => createChallenge(request, context, query.address)),
);

export const action = onlyMethods("GET");
