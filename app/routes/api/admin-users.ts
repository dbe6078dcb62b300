/** GET /api/admin/users[?search=] (admin): wallets with their points and staked count. */
import { apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { requireAdmin } from "../../utils/auth.server.ts";
import { listUsers } from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-users";

export const loader = apiRoute<Route.LoaderArgs>(async ({ request, context }) => {
  await requireAdmin(request, context);
  const search = (new URL(request.url).searchParams.get("search") ?? "").slice(0, 100);
  return listUsers(context.sql, { search });
});

export const action = onlyMethods("GET");
