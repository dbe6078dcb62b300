/** GET /api/admin/users[?search=] (admin): wallets with their points and staked count. */
import { listUsers } from "../../api/admin.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as points from "../../../db/queries/points.server.ts";
import type { Route } from "./+types/admin-users";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listUsers, ({ query, context }) => points.listUsers(context.sql, { search: query.search })),
);

export const action = onlyMethods("GET");
