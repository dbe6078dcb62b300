/** GET /api/live: the process answers. Reads nothing (no database), so only a stuck process fails it. */
import { live } from "../../api/system.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import type { Route } from "./+types/live";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(live, () => ({ ok: true as const })));

export const action = onlyMethods("GET");
