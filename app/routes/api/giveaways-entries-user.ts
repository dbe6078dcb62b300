/** GET /api/giveaways/entries/user/{address}: the wallet's entries with their giveaway's title, cost, end and state. */
import { listEntriesOfAddress } from "../../api/giveaways.ts";
import { apiRoute, endpoint, onlyMethods } from "../../utils/api.server.ts";
import * as giveaways from "../../../db/queries/giveaways.server.ts";
import type { Route } from "./+types/giveaways-entries-user";

export const loader = apiRoute<Route.LoaderArgs>(
  endpoint(listEntriesOfAddress, ({ params, context }) => giveaways.listEntriesOfAddress(context.sql, params.address)),
);

export const action = onlyMethods("GET");
