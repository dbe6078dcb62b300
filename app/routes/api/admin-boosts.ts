/** PUT /api/admin/boosts (admin): a new boost schedule from a whole hour. */
import { setBoosts } from "../../api/boosts.ts";
import { now } from "../../domain/clock.ts";
import { apiMethods, endpoint, onlyMethods } from "../../utils/api.server.ts";
import { createSchedule } from "../../../db/queries/boosts.server.ts";
import type { Route } from "./+types/admin-boosts";

export const action = apiMethods<Route.ActionArgs>({
  PUT: endpoint(setBoosts, ({ body, actor, context }) => createSchedule(context.sql, body, actor, now())),
});

export const loader = onlyMethods("PUT");
