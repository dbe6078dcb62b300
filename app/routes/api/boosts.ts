/** GET /api/boosts: the boost schedules, current, upcoming and past. */
import { getBoosts } from "../../api/boosts.ts";
import { now } from "../../domain/clock.ts";
import { apiRoute, endpoint } from "../../utils/api.server.ts";
import { boostSchedules } from "../../../db/queries/boosts.server.ts";
import type { Route } from "./+types/boosts";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(getBoosts, ({ context }) => boostSchedules(context.sql, now())));
