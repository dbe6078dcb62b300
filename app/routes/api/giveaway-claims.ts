/** GET /api/giveaways/{id}/claims (admin): every winner with their claim and contact, or none yet. */
import { listClaims } from "../../api/giveaways.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as claims from "../../../db/queries/claims.server.ts";
import type { Route } from "./+types/giveaway-claims";

export const loader = apiRoute<Route.LoaderArgs>(endpoint(listClaims, ({ params, context }) => claims.claimsOf(context.sql, params.id)));

export const action = onlyMethods("GET");
