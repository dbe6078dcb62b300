/** GET /api/giveaways/entries/user/{address}: the wallet's entries with their giveaway's title, cost, end and state. */
import { addressParam, apiRoute, onlyMethods } from "../../utils/api.server.ts";
import { listEntriesOfAddress } from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaways-entries-user";

export const loader = apiRoute<Route.LoaderArgs>(({ params, context }) =>
  listEntriesOfAddress(context.sql, addressParam(params.address)),
);

export const action = onlyMethods("GET");
